/**
 * npm run bench: latency of the compiled bsk against its floors, written to bench/results.json.
 *
 *   floor          a bare compiled-Bun process (empty script) — the cost of any CLI at all
 *   status         warm `bsk status` (daemon only)
 *   tab list       warm `bsk tab list` (daemon → extension → chrome.tabs)
 *   evaluate       warm `bsk evaluate 1+1` (→ chrome.debugger Runtime.evaluate)
 *   raw CDP        the same Runtime.evaluate over the browser's own DevTools socket, in-process (the peer floor)
 *   session start  `bsk session start` (opens a window) — p50 over repeated starts
 *   cold start     `bsk session start` with no daemon running while the extension retries at its backoff ceiling
 * Targets (issue 2): tab list p50 ≤ 15 ms, evaluate p50 ≤ 20 ms, session start p50 ≤ 500 ms, cold start ≤ 3 s.
 * See-and-act (scripts/bench/actions.ts) and snapshot size against Playwright (scripts/bench/snapshot-size.ts).
 * The MCP listing's size on the wire against its 4,000-token goal (scripts/bench/mcp.ts).
 * The operation ledger's fsync per mutation, in-process, against the in-memory floor (scripts/bench/ledger.ts).
 * Server mode with 500 scripted remote links: memory per idle link, calls per second (tests/load/remote-links.ts).
 *
 * `--peer agent-browser` runs only the peer lane instead (scripts/bench/peer.ts): bsk against agent-browser, calls
 * interleaved, written as the `peer` section of bench/results.json (the rest of the file is kept). It installs the peer
 * into a cache on first use; without the flag the bench needs no network.
 * `--against REF` runs only the A/B lane (scripts/bench/against.ts): this checkout against REF built in a temporary
 * worktree, calls interleaved, written as the `against` section.
 * `--hops` prints, per call, every chrome.* API the extension awaited and how long each took (scripts/bench/hops.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { EXTENSION_ID } from "../protocol/extension-identity.ts";
import { AGENT_BROWSER_VERSION, agentBrowser, installAgentBrowser } from "./bench/agent-browser.ts";
import { actionLatency } from "./bench/actions.ts";
import { againstLane, buildRef, type AgainstRow } from "./bench/against.ts";
import { hops } from "./bench/hops.ts";
import { ledgerCost } from "./bench/ledger.ts";
import { type McpListing, mcpListing, printListing } from "./bench/mcp.ts";
import { peerLane, printPeer } from "./bench/peer.ts";
import { printSizes, snapshotSizes, type SizeRow, unseenSizes } from "./bench/snapshot-size.ts";
import { printRows, row, RUNS, series, type Row } from "./bench/timing.ts";
import { NO_AUTOLOAD } from "./build.ts";
import { findChromium, launchChromium } from "./chromium.ts";
import { privateWorld, ROOT } from "./world.ts";

/** Fixture pages whose snapshots are compared with Playwright's (the ones that exist when the bench runs). */
function sizePages(): string[] {
  const names = readdirSync(join(ROOT, "tests/fixtures/pages")).filter((f) => /^(shop|checkout|snap-.*|act-.*|bench-.*)\.html$/.test(f));
  return names.sort().map((f) => `/${f}`);
}

async function floorBinary(): Promise<string> {
  const dir = mkdtempSync("/tmp/bsk-bench-floor-");
  writeFileSync(join(dir, "empty.ts"), "");
  const out = join(dir, "empty");
  const args = ["build", "--compile", "--minify", "--bytecode", "--format=esm", ...NO_AUTOLOAD, join(dir, "empty.ts"), "--outfile", out];
  const p = Bun.spawn(["bun", ...args], {
    stdout: "ignore",
    stderr: "inherit",
  });
  if ((await p.exited) !== 0) throw new Error("could not compile the empty floor binary");
  return out;
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
const againstFlag = process.argv.indexOf("--against");
if (againstFlag >= 0) {
  const ref = process.argv[againstFlag + 1];
  if (!ref || ref.startsWith("-")) throw new Error("--against needs a git ref (a commit, tag or branch) to compare with");
  await runAgainstLane(ref);
  process.exit(0);
}

async function runAgainstLane(ref: string): Promise<void> {
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
  const results = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, "utf8")) : {};
  const head = (await Bun.$`git rev-parse HEAD`.cwd(ROOT).text()).trim();
  results.against = { date: new Date().toISOString(), this: head, ref, ref_commit: built.commit, load_avg: loadavg(), runs: RUNS, rows };
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\n${"measure".padEnd(44)} ${"this ms".padEnd(9)} ${"ref ms".padEnd(9)} ratio`);
  for (const r of rows)
    console.log(`${r.name.padEnd(44)} ${String(r.this_p50_ms).padEnd(9)} ${String(r.ref_p50_ms).padEnd(9)} ${r.pair_ratio_p50}`);
  console.log("written to bench/results.json (against)");
}

if (process.argv.includes("--hops")) {
  await hops();
  process.exit(0);
}

const peerFlag = process.argv.indexOf("--peer");
if (peerFlag >= 0) {
  const name = process.argv[peerFlag + 1];
  if (name !== "agent-browser") throw new Error(`--peer: the only peer is agent-browser (got ${name ?? "nothing"})`);
  await runPeerLane();
  process.exit(0);
}

async function runPeerLane(): Promise<void> {
  const bin = await installAgentBrowser();
  const world = await privateWorld("bsk-bench-peer");
  const chromium = findChromium();
  if (!chromium) throw new Error("Chromium not found (set CHROMIUM)");
  const peer = agentBrowser(bin, join(world.home, "peer-home"), chromium);
  const name = `agent-browser ${AGENT_BROWSER_VERSION}`;
  let rows: Awaited<ReturnType<typeof peerLane>> = [];
  try {
    await world.startDaemon();
    await world.launchBrowser();
    const r = await world.run(["session", "start", "--no-focus"]);
    if (r.code !== 0) throw new Error(`session start failed: ${r.stderr}`);
    const floor = await floorBinary();
    rows = await peerLane(world, r.stdout.trim(), peer, name, floor);
    rmSync(join(floor, ".."), { recursive: true, force: true });
  } finally {
    await peer.run(["close", "--all"]).catch(() => {});
    await world.dispose();
  }
  const results = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, "utf8")) : {};
  results.peer = {
    date: new Date().toISOString(),
    peer: name,
    // The load average at the end: on a shared machine it says how far the absolute times are inflated.
    machine: {
      cores: navigator.hardwareConcurrency,
      platform: process.platform,
      arch: process.arch,
      bun: Bun.version,
      load_avg: loadavg(),
    },
    runs: RUNS,
    rows,
  };
  mkdirSync(join(ROOT, "bench"), { recursive: true });
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  printPeer(rows, name);
  console.log("written to bench/results.json (peer)");
}

const rows: Row[] = [];
let sizes: SizeRow[] = [];
let unseen: SizeRow[] = [];
let listing: McpListing | undefined;
const world = await privateWorld("bsk-bench");
try {
  const floor = await floorBinary();
  rows.push(row("floor: empty compiled Bun process", await series([floor], world.env)));
  rmSync(join(floor, ".."), { recursive: true, force: true });
  rows.push(...(await ledgerCost(world.home)));

  await world.startDaemon();
  await world.trustProfile();
  const browser = await launchChromium({
    extensionDir: join(ROOT, "dist/extension"),
    profileDir: join(world.home, "profile"),
    urls: [`chrome-extension://${EXTENSION_ID}/connect.html?port=${world.port}&label=bench`],
    cdp: true,
  });
  world.browser = browser;
  const bsk = join(ROOT, "dist/bsk");

  const starts: number[] = [];
  let session = "";
  for (let i = 0; i < 8; i++) {
    const r = await world.run(["session", "start", "--no-focus"]);
    if (r.code !== 0) throw new Error(`session start failed: ${r.stderr}`);
    starts.push(r.ms);
    if (i < 7) await world.run(["session", "stop", r.stdout.trim()]);
    else session = r.stdout.trim();
  }
  await world.run(["navigate", world.fixtures.url("/shop.html"), "--session", session]);

  rows.push(row("bsk status (warm)", await series([bsk, "status"], world.env), 12));
  rows.push(row("bsk tab list (warm)", await series([bsk, "tab", "list", "--session", session], world.env), 15));
  rows.push(row("bsk evaluate 1+1 (warm)", await series([bsk, "evaluate", "1+1", "--session", session], world.env), 20));
  rows.push(
    row(
      "raw CDP Runtime.evaluate (in-process, peer floor)",
      await rawCdpEvaluate(browser.cdpPort!, world.fixtures.url("/shop.html"), RUNS),
    ),
  );
  rows.push(...(await actionLatency({ bsk, env: world.env, run: world.run, session, url: world.fixtures.url })));
  listing = await mcpListing(world.env);
  sizes = await snapshotSizes({ run: world.run, session, chromium: browser.binary, urls: sizePages().map(world.fixtures.url) });
  unseen = await unseenSizes({ run: world.run, session, chromium: browser.binary });
  rows.push(row("bsk session start", starts.slice(1), 500, "first start excluded (browser warm-up)"));
  await world.run(["session", "stop", session]);

  // Cold start: no daemon; the extension keeps retrying with backoff; one CLI call brings everything up.
  const colds: number[] = [];
  for (let i = 0; i < 3; i++) {
    await world.run(["daemon", "stop"]);
    // Let the extension's reconnect backoff reach its 2 s ceiling, as when no daemon has run for a while.
    await Bun.sleep(6000);
    const t0 = performance.now();
    const r = await world.run(["session", "start", "--no-focus"]);
    colds.push(performance.now() - t0);
    if (r.code === 0) await world.run(["session", "stop", r.stdout.trim()]);
    else throw new Error(`cold session start failed: ${r.stderr}`);
  }
  rows.push(row("cold start → first session (no daemon running)", colds, 3000));
} finally {
  await world.dispose();
}

const previous = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, "utf8")) : {};
const results = {
  ...(previous.peer && { peer: previous.peer }),
  ...(previous.against && { against: previous.against }),
  date: new Date().toISOString(),
  machine: { cores: navigator.hardwareConcurrency, platform: process.platform, arch: process.arch, bun: Bun.version },
  runs: RUNS,
  rows,
  snapshot_sizes: sizes,
  snapshot_sizes_unseen: unseen,
  mcp_listing: listing,
};
mkdirSync(join(ROOT, "bench"), { recursive: true });
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);

// Server mode under load: its own process (tests/load/remote-links.ts adds `remote_links` to the results file).
const load = Bun.spawn([process.execPath, join(ROOT, "tests/load/remote-links.ts"), "500"], {
  cwd: ROOT,
  stdout: "inherit",
  stderr: "inherit",
});
if ((await load.exited) !== 0) throw new Error("the remote-links load test failed (a link refused, dropped or a call misrouted)");

printRows(rows);
console.log("\nsnapshot size, o200k tokens (bsk vs Playwright ariaSnapshot mode ai; controls = actionable DOM elements)");
printSizes(sizes);
console.log("\nsnapshot size on unseen pages (bench/unseen, never tuned on; ref coverage = controls with a ref / all)");
printSizes(unseen);
if (listing) printListing(listing);
console.log("written to bench/results.json");
