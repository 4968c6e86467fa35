/**
 * npm run bench: one run, written whole to bench/results.json with its date, the machine it ran on (cores, CPU, load
 * average at its start and end, Bun, Chromium and agent-browser versions, the commit) and the targets it was judged by
 * (scripts/bench/targets.ts, the one place they are set). Every ratio is written with its spread (the middle half of
 * the pairwise ratios). It holds:
 *   floor          bsk's own cost per CLI call, paired with an empty program built with the same flags (./bench/floor.ts)
 *   local          whole-process times on the bench's fixture pages: raw CDP (the peer floor), session start,
 *                  snapshot, click and fill (./bench/actions.ts), the ledger's fsync (./bench/ledger.ts)
 *   peer           bsk's CLI and `bsk mcp` against agent-browser, same calls, interleaved (./bench/peer.ts); installs
 *                  agent-browser into a cache on first use (the only step that needs the network)
 *   cold_start     (a) browser running, no daemon and (b) nothing running → first navigated page, both tools in the
 *                  same run (./bench/cold-start.ts)
 *   snapshot_sizes snapshot tokens against Playwright's AI snapshot (./bench/snapshot-size.ts), on the tuned
 *                  fixtures and on bench/unseen/ (pages never tuned on), with ref coverage
 *   mcp_listing    `bsk mcp`'s tools/list reply as sent, in tokens, against its 4,000 goal (./bench/mcp.ts)
 *   hops           where each call's time goes inside the extension (./bench/hops.ts)
 *   remote_links   server mode with 500 scripted remote links (tests/load/remote-links.ts, its own process)
 *
 * One part alone, printed and not written: `--floor`, `--peer agent-browser`, `--cold`, `--hops`, `--sizes` (both
 * snapshot-size tables). `--quote`: the
 * latest bench/results.json as the markdown README and docs/development.md quote (./bench/quote.ts).
 * `--against REF`: this checkout against REF built in a temporary worktree, interleaved, written whole to
 * bench/against.json (./bench/against.ts).
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_ID } from "../protocol/extension-identity.ts";
import { AGENT_BROWSER_VERSION, agentBrowser, installAgentBrowser, type Peer } from "./bench/agent-browser.ts";
import { actionLatency } from "./bench/actions.ts";
import { againstLane, buildRef, type AgainstRow } from "./bench/against.ts";
import { coldStart } from "./bench/cold-start.ts";
import { floorBinary, floorTable, printFloor } from "./bench/floor.ts";
import { hops } from "./bench/hops.ts";
import { ledgerCost } from "./bench/ledger.ts";
import { ended, machineFacts } from "./bench/machine.ts";
import { peerLane, printPeer } from "./bench/peer.ts";
import { quote } from "./bench/quote.ts";
import { type McpListing, mcpListing, printListing } from "./bench/mcp.ts";
import { printSizes, snapshotSizes, type SizeRow, unseenSizes } from "./bench/snapshot-size.ts";
import { TARGETS } from "./bench/targets.ts";
import { printRows, row, RUNS, type Row } from "./bench/timing.ts";
import { findChromium, launchChromium } from "./chromium.ts";
import { type PrivateWorld, privateWorld, ROOT } from "./world.ts";

/** Fixture pages whose snapshots are compared with Playwright's (the ones that exist when the bench runs). */
function sizePages(): string[] {
  const names = readdirSync(join(ROOT, "tests/fixtures/pages")).filter((f) => /^(shop|checkout|snap-.*|act-.*|bench-.*)\.html$/.test(f));
  return names.sort().map((f) => `/${f}`);
}

/** Runtime.evaluate round trips over a persistent raw CDP connection to a page target. */
async function rawCdpEvaluate(cdpPort: number, url: string, runs: number): Promise<number[]> {
  const targets = await (await fetch(`http://127.0.0.1:${cdpPort}/json/list`)).json();
  let page = targets.find((t: any) => t.type === "page" && t.url.startsWith("http"));
  if (!page) page = await (await fetch(`http://127.0.0.1:${cdpPort}/json/new?${url}`, { method: "PUT" })).json();
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((r) => (ws.onopen = r));
  let id = 0;
  const call = (method: string, params: object) =>
    new Promise<void>((resolve) => {
      const my = ++id;
      ws.onmessage = (ev) => {
        if (JSON.parse(String(ev.data)).id === my) resolve();
      };
      ws.send(JSON.stringify({ id: my, method, params }));
    });
  for (let i = 0; i < 5; i++) await call("Runtime.evaluate", { expression: "1+1", returnByValue: true });
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await call("Runtime.evaluate", { expression: "1+1", returnByValue: true });
    xs.push(performance.now() - t0);
  }
  ws.close();
  return xs;
}

const RESULTS = join(ROOT, "bench/results.json");
const AGAINST = join(ROOT, "bench/against.json");
const PEER = `agent-browser ${AGENT_BROWSER_VERSION}`;

function write(file: string, result: object): void {
  mkdirSync(join(ROOT, "bench"), { recursive: true });
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`written to ${file.slice(ROOT.length + 1)}`);
}

function chromiumPath(): string {
  const chromium = findChromium();
  if (!chromium) throw new Error("Chromium not found (set CHROMIUM)");
  return chromium;
}

/** A private world with its daemon, a trusted browser with bsk's extension (DevTools port open) and one session. */
async function liveWorld(prefix: string): Promise<{ world: PrivateWorld; session: string }> {
  const world = await privateWorld(prefix);
  await world.startDaemon();
  await world.trustProfile();
  world.browser = await launchChromium({
    extensionDir: join(ROOT, "dist/extension"),
    profileDir: join(world.home, "profile"),
    urls: [`chrome-extension://${EXTENSION_ID}/connect.html?port=${world.port}&label=${prefix}`],
    cdp: true,
  });
  const r = await world.run(["session", "start", "--no-focus"]);
  if (r.code !== 0) throw new Error(`session start failed: ${r.stderr}`);
  return { world, session: r.stdout.trim() };
}

/** agent-browser's DevTools URL, its browser started on the bench's small page when it is not yet. */
async function peerCdp(peer: Peer, url: string): Promise<string> {
  for (const args of [
    ["open", url],
    ["get", "cdp-url"],
  ]) {
    const r = await peer.run(args);
    if (r.code !== 0) throw new Error(`agent-browser ${args[0]} failed: ${r.stderr || r.stdout}`);
    if (args[0] === "get") return r.stdout.trim();
  }
  throw new Error("unreachable");
}

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : (process.argv[i + 1] ?? "");
};

async function againstRun(ref: string): Promise<void> {
  if (!ref || ref.startsWith("-")) throw new Error("--against needs a git ref (a commit, tag or branch) to compare with");
  const facts = machineFacts(chromiumPath());
  console.log(`building ${ref} in a temporary worktree…`);
  const built = await buildRef(ref);
  const { privateWorld: refWorld } = (await import(join(built.root, "scripts/world.ts"))) as { privateWorld: typeof privateWorld };
  const a = await privateWorld("bsk-bench-this");
  const b = await refWorld("bsk-bench-ref");
  let rows: AgainstRow[] = [];
  try {
    rows = await againstLane(a, b, built.root);
  } finally {
    await a.dispose();
    await b.dispose();
    await built.remove();
  }
  write(AGAINST, { date: new Date().toISOString(), machine: ended(facts), ref, ref_commit: built.commit, runs: RUNS, rows });
  console.log(`\n${"measure".padEnd(44)} ${"this ms".padEnd(9)} ${"ref ms".padEnd(9)} ${"ratio".padEnd(6)} p25–p75`);
  for (const r of rows)
    console.log(
      `${r.name.padEnd(44)} ${String(r.this_p50_ms).padEnd(9)} ${String(r.ref_p50_ms).padEnd(9)} ${String(r.pair_ratio_p50).padEnd(6)} ${r.pair_ratio_spread.join("–")}`,
    );
}

/** One part alone, printed: the floor table, the peer lane, the cold start or the snapshot sizes. */
async function part(which: "floor" | "peer" | "cold" | "sizes"): Promise<void> {
  const chromium = chromiumPath();
  const bin = which === "floor" || which === "sizes" ? undefined : await installAgentBrowser();
  const { world, session } = await liveWorld(`bsk-bench-${which}`);
  const floor = await floorBinary();
  const ab = bin ? agentBrowser(bin, join(world.home, "peer-home"), chromium) : undefined;
  try {
    if (which === "floor") {
      await world.run(["navigate", world.fixtures.url("/bench-peer-small.html"), "--session", session]);
      printFloor(await floorTable(world, session, floor.path, floor.bare));
    } else if (which === "sizes") {
      printSizes(await snapshotSizes({ run: world.run, session, chromium, urls: sizePages().map(world.fixtures.url) }));
      printSizes(await unseenSizes({ run: world.run, chromium }));
    } else if (which === "peer") printPeer(await peerLane(world, session, ab!, PEER, floor.path), PEER);
    else {
      const cdp = await peerCdp(ab!, world.fixtures.url("/bench-peer-small.html"));
      await world.run(["session", "stop", session]);
      printPeer(await coldStart(world, chromium, ab!, cdp), PEER);
    }
  } finally {
    await ab?.run(["close", "--all"]).catch(() => {});
    await world.dispose();
    floor.remove();
  }
}

const against = flag("--against");
const peerName = flag("--peer");
if (against !== undefined) await againstRun(against);
else if (process.argv.includes("--hops")) await hops();
else if (process.argv.includes("--quote")) quote();
else if (process.argv.includes("--floor")) await part("floor");
else if (process.argv.includes("--cold")) await part("cold");
else if (process.argv.includes("--sizes")) await part("sizes");
else if (peerName !== undefined) {
  if (peerName !== "agent-browser") throw new Error(`--peer: the only peer is agent-browser (got ${peerName || "nothing"})`);
  await part("peer");
} else await fullRun();
process.exit(0);

async function fullRun(): Promise<void> {
  const chromium = chromiumPath();
  const bin = await installAgentBrowser();
  const facts = machineFacts(chromium, PEER);
  const local: Row[] = [];
  let sizes: SizeRow[] = [];
  let unseen: SizeRow[] = [];
  let listing: McpListing | undefined;
  const floor = await floorBinary();
  const { world, session: first } = await liveWorld("bsk-bench");
  const peer = agentBrowser(bin, join(world.home, "peer-home"), chromium);
  let floorRows: Awaited<ReturnType<typeof floorTable>> = [];
  let peerRows: Awaited<ReturnType<typeof peerLane>> = [];
  let coldRows: Awaited<ReturnType<typeof coldStart>> = [];
  try {
    local.push(...(await ledgerCost(world.home)));
    // Session start: p50 over repeated starts, the first (the browser's warm-up) left out.
    const starts: number[] = [];
    let session = first;
    for (let i = 0; i < 8; i++) {
      await world.run(["session", "stop", session]);
      const r = await world.run(["session", "start", "--no-focus"]);
      if (r.code !== 0) throw new Error(`session start failed: ${r.stderr}`);
      starts.push(r.ms);
      session = r.stdout.trim();
    }
    await world.run(["navigate", world.fixtures.url("/bench-peer-small.html"), "--session", session]);
    floorRows = await floorTable(world, session, floor.path, floor.bare);
    await world.run(["navigate", world.fixtures.url("/shop.html"), "--session", session]);
    const bsk = join(ROOT, "dist/bsk");
    local.push(
      row(
        "raw CDP Runtime.evaluate (in-process, peer floor)",
        await rawCdpEvaluate(world.browser!.cdpPort!, world.fixtures.url("/shop.html"), RUNS),
      ),
    );
    local.push(...(await actionLatency({ bsk, env: world.env, run: world.run, session, url: world.fixtures.url })));
    listing = await mcpListing(world.env);
    sizes = await snapshotSizes({ run: world.run, session, chromium, urls: sizePages().map(world.fixtures.url) });
    unseen = await unseenSizes({ run: world.run, chromium });
    local.push(row("bsk session start", starts.slice(1), TARGETS.local["bsk session start"], "first start excluded (browser warm-up)"));
    peerRows = await peerLane(world, session, peer, PEER, floor.path);
    const cdp = await peerCdp(peer, world.fixtures.url("/bench-peer-small.html"));
    await world.run(["session", "stop", session]);
    coldRows = await coldStart(world, chromium, peer, cdp);
  } finally {
    await peer.run(["close", "--all"]).catch(() => {});
    await world.dispose();
    floor.remove();
  }
  // A part that fails after the others ran is said in the result, not allowed to lose the run.
  const hopCalls = await hops().catch((err: unknown) => ({ not_measured: err instanceof Error ? err.message.slice(0, 300) : String(err) }));
  write(RESULTS, {
    date: new Date().toISOString(),
    machine: ended(facts),
    targets: TARGETS,
    runs: RUNS,
    floor: floorRows,
    local,
    peer: peerRows,
    cold_start: coldRows,
    snapshot_sizes: sizes,
    snapshot_sizes_unseen: unseen,
    mcp_listing: listing,
    hops: hopCalls,
  });

  // Server mode under load: its own process (tests/load/remote-links.ts adds `remote_links` to the results file).
  const load = Bun.spawn([process.execPath, join(ROOT, "tests/load/remote-links.ts"), "500"], {
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await load.exited) !== 0) throw new Error("the remote-links load test failed (a link refused, dropped or a call misrouted)");

  printFloor(floorRows);
  console.log("");
  printRows(local);
  printPeer([...peerRows, ...coldRows], PEER);
  console.log("\nsnapshot size, o200k tokens (bsk vs Playwright ariaSnapshot mode ai; controls = actionable DOM elements)");
  printSizes(sizes);
  console.log("\nsnapshot size on unseen pages (bench/unseen, never tuned on; ref coverage = controls with a ref / all)");
  printSizes(unseen);
  if (listing) printListing(listing);
}
