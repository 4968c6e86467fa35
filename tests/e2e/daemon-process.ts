/** The daemon process of a test world: its pid from daemon.json, and whether a pid still runs. */
import { readFileSync } from "node:fs";

export function daemonPid(home: string): number {
  return JSON.parse(readFileSync(`${home}/daemon.json`, "utf8")).pid;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
