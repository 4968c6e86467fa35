/**
 * `npm run bench -- --floor`: bsk's own cost per CLI call on this machine. Each command is paired with an empty
 * program compiled with the same `bun build --compile` flags as dist/bsk, timed alternately (empty, bsk, empty, bsk …)
 * so the machine's drift hits both alike; what bsk adds is the median of the pairwise differences, with its middle
 * half. The floor itself is the runtime's start-up, which no bsk code can win back. One more row times
 * ./bare-round-trip.ts, compiled the same way: a round trip with bsk's safety checks and nothing else.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NO_AUTOLOAD } from "../build.ts";
import { BSK, type PrivateWorld } from "../world.ts";
import { interleaved } from "./peer.ts";
import { TARGETS } from "./targets.ts";
import { pct, RUNS, spread } from "./timing.ts";

export interface FloorRow {
  name: string;
  pairs: number;
  empty_p50_ms: number;
  bsk_p50_ms: number;
  /** bsk − empty program, pair by pair: p50 and its middle half (p25, p75). */
  own_p50_ms: number;
  own_spread_ms: [number, number];
  target_own_ms?: number;
}

async function compile(entry: string, out: string): Promise<void> {
  const args = ["build", "--compile", "--minify", "--bytecode", "--format=esm", ...NO_AUTOLOAD, entry, "--outfile", out];
  const p = Bun.spawn(["bun", ...args], { stdout: "ignore", stderr: "inherit" });
  if ((await p.exited) !== 0) throw new Error(`could not compile ${entry} for the floor`);
}

/**
 * An empty program built as scripts/build.ts builds dist/bsk, and the bare round trip (`bare`) built the same way;
 * `remove()` deletes both.
 */
export async function floorBinary(): Promise<{ path: string; bare: string; remove(): void }> {
  const dir = mkdtempSync("/tmp/bsk-bench-floor-");
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    writeFileSync(join(dir, "empty.ts"), "");
    await compile(join(dir, "empty.ts"), join(dir, "empty"));
    await compile(join(import.meta.dir, "bare-round-trip.ts"), join(dir, "bare"));
  } catch (e) {
    remove();
    throw e;
  }
  return { path: join(dir, "empty"), bare: join(dir, "bare"), remove };
}

/** The floor table; `world` has its daemon running and a session open on a page; `bare` is floorBinary's. */
export async function floorTable(world: PrivateWorld, session: string, empty: string, bare?: string): Promise<FloorRow[]> {
  const idle = mkdtempSync("/tmp/bsk-bench-idle-");
  // A home no daemon serves, with automatic start off: the CLI's whole path to its refusal.
  const noDaemon = { ...world.env, BSK_HOME: idle, BSK_AUTO_START: "0" };
  const cases: [name: string, argv: string[], env: Record<string, string>, expect: number][] = [
    ["bsk version", [BSK, "version"], world.env, 0],
    ["bsk status (no daemon, BSK_AUTO_START=0)", [BSK, "status"], noDaemon, 1],
    ["bsk status (warm)", [BSK, "status"], world.env, 0],
    ["bsk tab list (warm)", [BSK, "tab", "list", "--session", session], world.env, 0],
    ["bsk evaluate 1+1 (warm)", [BSK, "evaluate", "1+1", "--session", session], world.env, 0],
  ];
  if (bare) cases.push(["bare round trip: socket check, link proof, status", [bare], world.env, 0]);
  const rows: FloorRow[] = [];
  try {
    for (const [name, argv, env, expect] of cases) {
      const { as: es, bs } = await interleaved({ argv: () => [empty], env }, { argv: () => argv, env, expect }, RUNS, 5);
      const own = bs.map((b, i) => b - es[i]!);
      const r: FloorRow = {
        name,
        pairs: bs.length,
        empty_p50_ms: pct(es, 50),
        bsk_p50_ms: pct(bs, 50),
        own_p50_ms: pct(own, 50),
        own_spread_ms: spread(own),
        target_own_ms: TARGETS.floor[name],
      };
      rows.push(r);
      console.log(`  ${name}: bsk ${r.bsk_p50_ms} ms, empty program ${r.empty_p50_ms} ms`);
    }
  } finally {
    rmSync(idle, { recursive: true, force: true });
  }
  return rows;
}

export function printFloor(rows: FloorRow[]): void {
  const pad = (s: string | number, n: number) => String(s).padEnd(n);
  console.log(
    `\n${pad("bsk's own cost per call (paired with an empty program)", 56)} ${pad("bsk ms", 8)} ${pad("empty ms", 9)} ${pad("own ms", 7)} ${pad("p25–p75", 13)} target`,
  );
  for (const r of rows) {
    const target = r.target_own_ms === undefined ? "" : `≤ ${r.target_own_ms} ${r.own_p50_ms <= r.target_own_ms ? "ok" : "MISSED"}`;
    console.log(
      `${pad(r.name, 56)} ${pad(r.bsk_p50_ms, 8)} ${pad(r.empty_p50_ms, 9)} ${pad(r.own_p50_ms, 7)} ${pad(`${r.own_spread_ms[0]}–${r.own_spread_ms[1]}`, 13)} ${target}`,
    );
  }
}
