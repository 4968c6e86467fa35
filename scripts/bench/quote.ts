/**
 * `npm run bench -- --quote`: bench/results.json as the markdown README and docs/development.md quote, so the
 * figures in prose are the latest run's, with when and where it ran. Prints; writes nothing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../world.ts";
import type { FloorRow } from "./floor.ts";
import type { Machine } from "./machine.ts";
import type { PeerRow } from "./peer.ts";

const range = (x?: [number, number]) => (x ? `${x[0]}–${x[1]}` : "");
const within = (v: number | undefined, t: number | undefined) => (v === undefined || t === undefined ? "" : v <= t ? "met" : "missed");

export function quote(): void {
  const r = JSON.parse(readFileSync(join(ROOT, "bench/results.json"), "utf8")) as {
    date: string;
    machine: Machine;
    runs: number;
    floor: FloorRow[];
    peer: PeerRow[];
    cold_start: PeerRow[];
  };
  const m = r.machine;
  console.log(
    `Run ${r.date.slice(0, 16).replace("T", " ")} UTC at ${m.commit}: ${m.cores} cores (${m.cpu}), load average ${m.load_avg_start[0]} at its start and ${m.load_avg_end?.[0]} at its end, Bun ${m.bun}, ${m.chromium}, ${m.peer}; ${r.runs} pairs a row, p50, ratios with the middle half of the pairwise ratios.\n`,
  );
  console.log("| command | bsk ms | empty program ms | bsk's own ms (p25–p75) | target |\n|---|---|---|---|---|");
  for (const f of r.floor)
    console.log(
      `| \`${f.name}\` | ${f.bsk_p50_ms} | ${f.empty_p50_ms} | ${f.own_p50_ms} (${range(f.own_spread_ms)}) | ${f.target_own_ms === undefined ? "" : `≤ ${f.target_own_ms} ${within(f.own_p50_ms, f.target_own_ms)}`} |`,
    );
  console.log(
    "\n| call | bsk CLI ms | agent-browser ms | CLI ratio (p25–p75) | target | bsk mcp ms | mcp ratio (p25–p75) | target |\n|---|---|---|---|---|---|---|---|",
  );
  for (const p of [...r.peer, ...r.cold_start]) {
    const cli = `${p.ratio} (${range(p.pair_ratio_spread)})`;
    const mcp = p.mcp_ratio === undefined ? "" : `${p.mcp_ratio} (${range(p.mcp_pair_ratio_spread)})`;
    const t = (x?: number, v?: number) => (x === undefined ? "" : `≤ ${x} ${within(v, x)}`);
    console.log(
      `| ${p.name} | ${p.bsk_p50_ms} | ${p.peer_p50_ms} | ${cli} | ${t(p.target_ratio, p.ratio)} | ${p.mcp_p50_ms ?? ""} | ${mcp} | ${t(p.target_mcp_ratio, p.mcp_ratio)} |`,
    );
  }
}
