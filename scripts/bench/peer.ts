/**
 * The peer lane (`npm run bench -- --peer agent-browser`): bsk against agent-browser on the same fixture pages, in one
 * run, calls interleaved pair by pair (bsk, peer, bsk, peer …) so the machine's drift hits both alike. Every call is a
 * whole process, as an agent's shell runs it. The ratio is bsk's p50 over the peer's p50 (the median of the pair ratios
 * is kept too). Targets (issue 14): actions and snapshot ≤ 1.0×, evaluate ≤ 1.2×, warm reads ≤ 1.3×, and cold start
 * (no daemon, browser running → first navigated page) ≤ 500 ms.
 */
import { BSK, type PrivateWorld } from "../world.ts";
import type { Peer } from "./agent-browser.ts";
import { pct, RUNS, timeProcess } from "./timing.ts";

export interface PeerRow {
  name: string;
  bsk: string;
  peer: string;
  pairs: number;
  bsk_p50_ms: number;
  peer_p50_ms: number;
  /** bsk p50 / peer p50 */
  ratio: number;
  /** The median of the ratios pair by pair. */
  pair_ratio_p50: number;
  target_ratio?: number;
  target_ms?: number;
  note?: string;
}

export type Argv = (i: number) => string[];

export interface Side {
  argv: Argv;
  env: Record<string, string>;
}

export async function interleaved(a: Side, b: Side, runs: number, warmup = 3): Promise<{ as: number[]; bs: number[] }> {
  for (let i = 0; i < warmup; i++) {
    await timeProcess(a.argv(i), a.env);
    await timeProcess(b.argv(i), b.env);
  }
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < runs; i++) {
    as.push(await timeProcess(a.argv(warmup + i), a.env));
    bs.push(await timeProcess(b.argv(warmup + i), b.env));
  }
  return { as, bs };
}

function peerRow(
  name: string,
  bsk: string,
  peer: string,
  as: number[],
  bs: number[],
  target: { ratio?: number; ms?: number },
  note?: string,
): PeerRow {
  const ratios = as.map((a, i) => a / bs[i]!);
  const bskP50 = pct(as, 50);
  const peerP50 = pct(bs, 50);
  return {
    name,
    bsk,
    peer,
    pairs: as.length,
    bsk_p50_ms: bskP50,
    peer_p50_ms: peerP50,
    ratio: +(bskP50 / peerP50).toFixed(2),
    pair_ratio_p50: pct(ratios, 50),
    target_ratio: target.ratio,
    target_ms: target.ms,
    note,
  };
}

/** The ref on the first line matching `line` in a snapshot's text: bsk writes `@eN`, agent-browser `[ref=eN]`. */
export function refIn(text: string, line: RegExp): string {
  const hit = text.split("\n").find((l) => line.test(l));
  const ref = hit?.match(/@e\d+/)?.[0] ?? hit?.match(/ref=(e\d+)/)?.[1];
  if (!ref) throw new Error(`no ref for ${line} in:\n${text.slice(0, 2000)}`);
  return ref.startsWith("@") ? ref : `@${ref}`;
}

async function must(r: Promise<{ code: number; stdout: string; stderr: string }>, what: string): Promise<string> {
  const x = await r;
  if (x.code !== 0) throw new Error(`${what} failed: ${x.stderr || x.stdout}`);
  return x.stdout;
}

export async function peerLane(world: PrivateWorld, session: string, peer: Peer, peerName: string, floor: string): Promise<PeerRow[]> {
  const bsk = (args: string[]): string[] => [BSK, ...args, "--session", session];
  const rows: PeerRow[] = [];
  const pair = async (name: string, b: Argv, p: Argv, target: { ratio?: number; ms?: number }, note?: string) => {
    const { as, bs } = await interleaved({ argv: b, env: world.env }, { argv: p, env: peer.env }, RUNS);
    rows.push(peerRow(name, b(0).slice(1).join(" "), p(0).slice(1).join(" "), as, bs, target, note));
    console.log(`  ${name}: bsk ${rows.at(-1)!.bsk_p50_ms} ms, ${peerName} ${rows.at(-1)!.peer_p50_ms} ms`);
  };
  const small = world.fixtures.url("/bench-peer-small.html");
  const controls = world.fixtures.url("/bench-peer-controls.html");
  await must(world.run(["navigate", small, "--session", session]), "bsk navigate");
  await must(peer.run(["open", small]), `${peerName} open`);

  // What no bsk code can win back: an empty compiled Bun program against the peer's own no-op call.
  await pair(
    "floor: empty Bun binary / --version",
    () => [floor],
    () => peer.argv(["--version"]),
    {},
    "the runtime's start-up alone, before any bsk code",
  );
  await pair(
    "warm read: tab list",
    () => bsk(["tab", "list"]),
    () => peer.argv(["get", "url"]),
    { ratio: 1.3 },
  );
  await pair(
    "warm read: status",
    () => [BSK, "status"],
    () => peer.argv(["get", "url"]),
    { ratio: 1.3 },
  );
  await pair(
    "evaluate 1+1",
    () => bsk(["evaluate", "1+1"]),
    () => peer.argv(["eval", "1+1"]),
    { ratio: 1.2 },
  );
  await pair(
    "snapshot, small page",
    () => bsk(["snapshot"]),
    () => peer.argv(["snapshot"]),
    { ratio: 1.0 },
  );

  const mine = JSON.parse(await must(world.run(["snapshot", "--json", "--session", session]), "bsk snapshot")).result.text as string;
  const theirs = await must(peer.run(["snapshot"]), `${peerName} snapshot`);
  const ref = (re: RegExp) => ({ bsk: refIn(mine, re), peer: refIn(theirs, re) });
  const add = ref(/button "Add note"/);
  const name = ref(/textbox "Full name"/);
  const notes = ref(/textbox "Notes"/);
  const plan = ref(/combobox "Plan"/);
  const news = ref(/checkbox "Send me news"/);
  const more = ref(/button "More"/);
  await pair(
    "click (button, DOM changes)",
    () => bsk(["click", add.bsk]),
    () => peer.argv(["click", add.peer]),
    { ratio: 1.0 },
  );
  await pair(
    "fill (text input)",
    () => bsk(["fill", name.bsk, "Ada Lovelace"]),
    () => peer.argv(["fill", name.peer, "Ada Lovelace"]),
    { ratio: 1.0 },
  );
  await pair(
    "type 3 keys",
    () => bsk(["type", "abc", "--target", notes.bsk]),
    () => peer.argv(["type", notes.peer, "abc"]),
    { ratio: 1.0 },
  );
  await pair(
    "press End (focused field)",
    () => bsk(["press", "End"]),
    () => peer.argv(["press", "End"]),
    { ratio: 1.0 },
  );
  const planValue = (i: number) => (i % 2 ? "pro" : "team");
  await pair(
    "select (alternating value)",
    (i) => bsk(["select", plan.bsk, planValue(i)]),
    (i) => peer.argv(["select", plan.peer, planValue(i)]),
    {
      ratio: 1.0,
    },
  );
  const toggle = (i: number) => (i % 2 ? "uncheck" : "check");
  await pair(
    "check / uncheck (alternating)",
    (i) => bsk([toggle(i), news.bsk]),
    (i) => peer.argv([toggle(i), news.peer]),
    { ratio: 1.0 },
  );
  await pair(
    "hover (button)",
    () => bsk(["hover", more.bsk]),
    () => peer.argv(["hover", more.peer]),
    { ratio: 1.0 },
  );

  await must(world.run(["navigate", controls, "--session", session]), "bsk navigate");
  await must(peer.run(["open", controls]), `${peerName} open`);
  await pair(
    "snapshot, 100 controls",
    () => bsk(["snapshot"]),
    () => peer.argv(["snapshot"]),
    { ratio: 1.0 },
  );

  rows.push(await coldStart(world, session, peer, small));
  return rows;
}

/**
 * Cold start: no daemon, the browser running → the first navigated page. bsk: `session start` (which starts the
 * daemon) then `navigate`, after the extension has waited long enough for any reconnect back-off to reach its
 * ceiling. The peer: a new session attaching to its running Chromium over CDP (`--cdp`), `open`.
 */
async function coldStart(world: PrivateWorld, session: string, peer: Peer, url: string): Promise<PeerRow> {
  const cdp = (await must(peer.run(["get", "cdp-url"]), "agent-browser get cdp-url")).trim();
  await world.run(["session", "stop", session]);
  const as: number[] = [];
  const bs: number[] = [];
  const runs = Math.max(3, Math.min(5, RUNS));
  const coldEnv = { ...peer.env, AGENT_BROWSER_SESSION: "cold" };
  for (let i = 0; i < runs; i++) {
    await world.run(["daemon", "stop"]);
    await Bun.sleep(6000);
    const t0 = performance.now();
    const s = (await must(world.run(["session", "start", "--no-focus"]), "cold bsk session start")).trim();
    await must(world.run(["navigate", url, "--session", s]), "cold bsk navigate");
    as.push(performance.now() - t0);
    await world.run(["session", "stop", s]);

    bs.push(await timeProcess(peer.argv(["--cdp", cdp, "open", url]), coldEnv));
    await timeProcess(peer.argv(["close"]), coldEnv);
  }
  return peerRow(
    "cold start → first navigated page",
    "session start + navigate (no daemon)",
    "--cdp URL open (new session)",
    as,
    bs,
    { ms: 500 },
    "bsk waits 6 s with its daemon down before each run",
  );
}

export function printPeer(rows: PeerRow[], peerName: string): void {
  const pad = (s: string | number, n: number) => String(s).padEnd(n);
  console.log(
    `\n${pad(`bsk vs ${peerName} (p50, interleaved)`, 36)} ${pad("bsk ms", 8)} ${pad("peer ms", 8)} ${pad("ratio", 6)} ${pad("pairwise", 9)} target`,
  );
  for (const r of rows) {
    const ok = r.target_ms !== undefined ? r.bsk_p50_ms <= r.target_ms : r.target_ratio === undefined || r.ratio <= r.target_ratio;
    const target = r.target_ms !== undefined ? `≤ ${r.target_ms} ms` : r.target_ratio !== undefined ? `≤ ${r.target_ratio}×` : "";
    console.log(
      `${pad(r.name, 36)} ${pad(r.bsk_p50_ms, 8)} ${pad(r.peer_p50_ms, 8)} ${pad(r.ratio, 6)} ${pad(r.pair_ratio_p50, 9)} ${target} ${target ? (ok ? "ok" : "MISSED") : ""}`,
    );
  }
}
