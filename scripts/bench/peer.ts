/**
 * The peer lane (`npm run bench -- --peer agent-browser`): bsk against agent-browser on the same fixture pages, in one
 * run, calls interleaved pair by pair (bsk, peer, bsk, peer …) so the machine's drift hits both alike. Every call is a
 * whole process, as an agent's shell runs it. The ratio is bsk's p50 over the peer's p50 (the median of the pair ratios
 * is kept too, with its middle half). Targets: ./targets.ts. Cold start is ./cold-start.ts.
 *
 * A third column times the same call through a long-lived `bsk mcp` (./mcp.ts), interleaved with the other two: the
 * round trip an MCP client sees, with no process start per call.
 */
import { BSK, type PrivateWorld } from "../world.ts";
import type { Peer } from "./agent-browser.ts";
import { type McpCall, McpLane } from "./mcp.ts";
import { type PeerKind, TARGETS } from "./targets.ts";
import { pct, RUNS, spread, timeProcess } from "./timing.ts";

export interface PeerRow {
  name: string;
  bsk: string;
  peer: string;
  pairs: number;
  bsk_p50_ms: number;
  peer_p50_ms: number;
  /** bsk p50 / peer p50 */
  ratio: number;
  /** The median of the ratios pair by pair, and their middle half (p25, p75). */
  pair_ratio_p50: number;
  pair_ratio_spread: [number, number];
  target_ratio?: number;
  /** The same call through a long-lived `bsk mcp`: p50, its ratio to the peer's p50, the pairwise ratios' p50 and middle half. */
  mcp_p50_ms?: number;
  mcp_ratio?: number;
  mcp_pair_ratio_p50?: number;
  mcp_pair_ratio_spread?: [number, number];
  target_mcp_ratio?: number;
  note?: string;
}

export type Argv = (i: number) => string[];

export interface Side {
  argv: Argv;
  env: Record<string, string>;
  /** The exit code every call must end with (0 unless the call measures a refusal). */
  expect?: number;
}

/** Optional third side of a pair: the same call through `bsk mcp`. */
export interface McpSide {
  lane: McpLane;
  call: McpCall;
}

export async function interleaved(
  a: Side,
  b: Side,
  runs: number,
  warmup = 3,
  c?: McpSide,
): Promise<{ as: number[]; bs: number[]; cs: number[] }> {
  const as: number[] = [];
  const bs: number[] = [];
  const cs: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const keep = i >= warmup;
    const ta = await timeProcess(a.argv(i), a.env, a.expect);
    const tb = await timeProcess(b.argv(i), b.env, b.expect);
    const tc = c ? await c.lane.time(c.call, i) : undefined;
    if (!keep) continue;
    as.push(ta);
    bs.push(tb);
    if (tc !== undefined) cs.push(tc);
  }
  return { as, bs, cs };
}

export function peerRow(
  name: string,
  bsk: string,
  peer: string,
  as: number[],
  bs: number[],
  target: { cli?: number; mcp?: number },
  note?: string,
  cs: number[] = [],
): PeerRow {
  const ratios = as.map((a, i) => a / bs[i]!);
  const mcpRatios = cs.map((c, i) => c / bs[i]!);
  const bskP50 = pct(as, 50);
  const peerP50 = pct(bs, 50);
  const mcpP50 = cs.length ? pct(cs, 50) : undefined;
  return {
    name,
    bsk,
    peer,
    pairs: as.length,
    bsk_p50_ms: bskP50,
    peer_p50_ms: peerP50,
    ratio: +(bskP50 / peerP50).toFixed(2),
    pair_ratio_p50: pct(ratios, 50),
    pair_ratio_spread: spread(ratios),
    target_ratio: target.cli,
    ...(mcpP50 !== undefined && {
      mcp_p50_ms: mcpP50,
      mcp_ratio: +(mcpP50 / peerP50).toFixed(2),
      mcp_pair_ratio_p50: pct(mcpRatios, 50),
      mcp_pair_ratio_spread: spread(mcpRatios),
      target_mcp_ratio: target.mcp,
    }),
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

/** `BENCH_ONLY=regex`: only the rows whose name matches (a quick A/B of a few calls; the full bench runs every row). */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;

export async function peerLane(world: PrivateWorld, session: string, peer: Peer, peerName: string, floor: string): Promise<PeerRow[]> {
  const bsk = (args: string[]): string[] => [BSK, ...args, "--session", session];
  const rows: PeerRow[] = [];
  const lane = await McpLane.start(world.env);
  const mcp = (tool: string, args: (i: number) => Record<string, unknown> = () => ({})): McpCall => ({
    tool,
    args: (i) => ({ session_id: session, ...args(i) }),
  });
  /** One row: bsk's CLI against the peer, and (with `mcp`) the same call through `bsk mcp`, all interleaved. */
  const pair = async (name: string, b: Argv, p: Argv, kind: PeerKind | undefined, extra: { note?: string; mcp?: McpCall } = {}) => {
    if (ONLY && !ONLY.test(name)) return;
    const { note, mcp: call } = extra;
    const c = call && { lane, call };
    const { as, bs, cs } = await interleaved({ argv: b, env: world.env }, { argv: p, env: peer.env }, RUNS, 3, c);
    rows.push(peerRow(name, b(0).slice(1).join(" "), p(0).slice(1).join(" "), as, bs, kind ? TARGETS.peer[kind] : {}, note, cs));
    const r = rows.at(-1)!;
    console.log(`  ${name}: bsk ${r.bsk_p50_ms} ms, ${peerName} ${r.peer_p50_ms} ms${r.mcp_p50_ms ? `, bsk mcp ${r.mcp_p50_ms} ms` : ""}`);
  };
  try {
    await calls();
  } finally {
    await lane.close();
  }
  return rows;

  async function calls(): Promise<void> {
    const small = world.fixtures.url("/bench-peer-small.html");
    const controls = world.fixtures.url("/bench-peer-controls.html");
    await must(world.run(["navigate", small, "--session", session]), "bsk navigate");
    await must(peer.run(["open", small]), `${peerName} open`);

    // What no bsk code can win back: an empty compiled Bun program against the peer's own no-op call.
    await pair(
      "floor: empty Bun binary / --version",
      () => [floor],
      () => peer.argv(["--version"]),
      undefined,
      { note: "the runtime's start-up alone, before any bsk code" },
    );
    await pair(
      "warm read: tab list",
      () => bsk(["tab", "list"]),
      () => peer.argv(["get", "url"]),
      "read",
      { mcp: mcp("tab_list") },
    );
    await pair(
      "warm read: status",
      () => [BSK, "status"],
      () => peer.argv(["get", "url"]),
      "read",
      { mcp: { tool: "system_status", args: () => ({}) } },
    );
    await pair(
      "evaluate 1+1",
      () => bsk(["evaluate", "1+1"]),
      () => peer.argv(["eval", "1+1"]),
      "evaluate",
      { mcp: mcp("evaluate", () => ({ expression: "1+1" })) },
    );
    await pair(
      "snapshot, small page",
      () => bsk(["snapshot"]),
      () => peer.argv(["snapshot"]),
      "snapshot",
      { mcp: mcp("snapshot") },
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
      "action",
      { mcp: mcp("click", () => ({ target: add.bsk })) },
    );
    await pair(
      "fill (text input)",
      () => bsk(["fill", name.bsk, "Ada Lovelace"]),
      () => peer.argv(["fill", name.peer, "Ada Lovelace"]),
      "action",
      { mcp: mcp("fill", () => ({ target: name.bsk, value: "Ada Lovelace" })) },
    );
    await pair(
      "type 3 keys",
      () => bsk(["type", "abc", "--target", notes.bsk]),
      () => peer.argv(["type", notes.peer, "abc"]),
      "action",
      { mcp: mcp("type", () => ({ text: "abc", target: notes.bsk })) },
    );
    await pair(
      "press End (focused field)",
      () => bsk(["press", "End"]),
      () => peer.argv(["press", "End"]),
      "action",
      { mcp: mcp("press", () => ({ key: "End" })) },
    );
    // The peer alternates; bsk's CLI and MCP calls alternate between them (the CLI one value, MCP the other), so every
    // call is a change on both sides.
    const planValue = (i: number) => (i % 2 ? "pro" : "team");
    await pair(
      "select (alternating value)",
      () => bsk(["select", plan.bsk, "team"]),
      (i) => peer.argv(["select", plan.peer, planValue(i)]),
      "action",
      { mcp: mcp("select", () => ({ target: plan.bsk, values: ["pro"] })) },
    );
    const toggle = (i: number) => (i % 2 ? "uncheck" : "check");
    await pair(
      "check / uncheck (alternating)",
      () => bsk(["check", news.bsk]),
      (i) => peer.argv([toggle(i), news.peer]),
      "action",
      { mcp: mcp("uncheck", () => ({ target: news.bsk })) },
    );
    await pair(
      "hover (button)",
      () => bsk(["hover", more.bsk]),
      () => peer.argv(["hover", more.peer]),
      "action",
      { mcp: mcp("hover", () => ({ target: more.bsk })) },
    );

    await must(world.run(["navigate", controls, "--session", session]), "bsk navigate");
    await must(peer.run(["open", controls]), `${peerName} open`);
    await pair(
      "snapshot, 100 controls",
      () => bsk(["snapshot"]),
      () => peer.argv(["snapshot"]),
      "snapshot",
      { mcp: mcp("snapshot") },
    );
  }
}

const verdict = (ratio: number | undefined, target: number | undefined) =>
  ratio === undefined || target === undefined ? "" : `≤ ${target} ${ratio <= target ? "ok" : "MISSED"}`;

export function printPeer(rows: PeerRow[], peerName: string): void {
  const pad = (s: string | number, n: number) => String(s).padEnd(n);
  const range = (x?: [number, number]) => (x ? `${x[0]}–${x[1]}` : "");
  console.log(
    `\n${pad(`bsk vs ${peerName} (p50, interleaved)`, 36)} ${pad("bsk ms", 8)} ${pad("peer ms", 8)} ${pad("ratio", 6)} ${pad("p25–p75", 10)} ${pad("target", 12)} ${pad("mcp ms", 8)} ${pad("ratio", 6)} ${pad("p25–p75", 10)} target`,
  );
  for (const r of rows) {
    console.log(
      `${pad(r.name, 36)} ${pad(r.bsk_p50_ms, 8)} ${pad(r.peer_p50_ms, 8)} ${pad(r.ratio, 6)} ${pad(range(r.pair_ratio_spread), 10)} ${pad(verdict(r.ratio, r.target_ratio), 12)} ${pad(r.mcp_p50_ms ?? "", 8)} ${pad(r.mcp_ratio ?? "", 6)} ${pad(range(r.mcp_pair_ratio_spread), 10)} ${verdict(r.mcp_ratio, r.target_mcp_ratio)}`,
    );
  }
}
