/**
 * The facts a bench result is read against: the machine (cores, CPU, load average when the run began and ended), the
 * runtime, the browser and the peer's versions, and the commit measured. Absolute times mean little without them.
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { ROOT } from "../world.ts";

export interface Machine {
  cores: number;
  cpu: string;
  platform: string;
  arch: string;
  bun: string;
  chromium: string;
  peer?: string;
  commit: string;
  /** 1, 5 and 15 minute load averages when the run began and when it ended: on a shared machine they say how far its times are inflated. */
  load_avg_start: number[];
  load_avg_end?: number[];
}

const round = (xs: number[]) => xs.map((x) => +x.toFixed(2));

export function machineFacts(chromium: string, peer?: string): Machine {
  const out = (cmd: string, args: string[], cwd?: string) => spawnSync(cmd, args, { encoding: "utf8", cwd }).stdout?.trim() ?? "";
  // Changes to the prose or the results themselves change nothing measured.
  const dirty = out("git", ["status", "--porcelain", "--untracked-files=no", "--", ".", ":!*.md", ":!bench/"], ROOT)
    ? " (with uncommitted changes)"
    : "";
  return {
    cores: navigator.hardwareConcurrency,
    cpu: cpus()[0]?.model ?? "unknown",
    platform: process.platform,
    arch: process.arch,
    bun: Bun.version,
    chromium: out(chromium, ["--version"]) || chromium,
    ...(peer && { peer }),
    commit: out("git", ["rev-parse", "--short", "HEAD"], ROOT) + dirty,
    load_avg_start: round(loadavg()),
  };
}

/** Marks the end of the run on its facts. */
export function ended(m: Machine): Machine {
  return { ...m, load_avg_end: round(loadavg()) };
}
