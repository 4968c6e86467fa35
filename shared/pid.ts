/** Is a process still there? Used for the daemon lock and for sessions bound to an owner process. */
import { readdirSync, readFileSync } from "node:fs";

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  // A zombie still answers kill(0) until its parent reaps it, but it has exited — unless it is the leader of threads
  // that are still exiting: they hold its open files (a daemon's listening socket) until the last one is gone.
  return procState(pid) !== "Z" || threadsLeft(pid) > 1;
}

function threadsLeft(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return 0;
  }
}

function procStat(pid: number): string[] | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may itself hold spaces or parentheses.
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

function procState(pid: number): string | undefined {
  return procStat(pid)?.[0];
}

let bootMs: number | undefined;

/** When the process started (ms since the epoch), where the OS tells (Linux); else undefined. */
export function processStartMs(pid: number): number | undefined {
  const fields = procStat(pid);
  // Field 22 of /proc/pid/stat (starttime, in clock ticks since boot); fields[0] is field 3.
  const ticks = Number(fields?.[19]);
  if (!Number.isFinite(ticks)) return undefined;
  if (bootMs === undefined) {
    try {
      const btime = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
      if (!btime) return undefined;
      bootMs = Number(btime[1]) * 1000;
    } catch {
      return undefined;
    }
  }
  // USER_HZ is 100 on every Linux ABI Bun runs on.
  return bootMs + ticks * 10;
}
