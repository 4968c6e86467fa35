/** Is a process still there? Used for the daemon lock and for sessions bound to an owner process. */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export function pidAlive(pid: number, platform: string = process.platform): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  // A zombie still answers kill(0) until its parent reaps it, but it has exited. On Linux, unless it is the leader of
  // threads that are still exiting: they hold its open files (a daemon's listening socket) until the last one is gone.
  // macOS has no /proc: ps says (a zombie there has closed its files).
  if (platform === "darwin") return psState(pid) !== "Z";
  return procState(pid) !== "Z" || threadsLeft(pid) > 1;
}

/** The first letter of `ps -o stat=` (R, S, Z, …), undefined when ps cannot tell. */
export function psState(pid: number): string | undefined {
  return psField(pid, "stat")?.trim()[0];
}

/** One `ps -o <field>=` column of a process in the C locale; undefined when ps cannot tell. */
function psField(pid: number, field: string): string | undefined {
  // /bin/ps by its path: a PATH an agent's repo sets could name another ps.
  const r = spawnSync("/bin/ps", ["-o", `${field}=`, "-p", String(pid)], {
    encoding: "utf8",
    env: { ...process.env, LC_ALL: "C" },
    timeout: 5000,
  });
  return r.status === 0 ? r.stdout : undefined;
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

/**
 * When the process started (ms since the epoch), where the OS tells: Linux from /proc, macOS (no /proc) from ps,
 * to the second; else undefined.
 */
export function processStartMs(pid: number, platform = process.platform): number | undefined {
  if (platform === "darwin") return psStartMs(pid);
  return procStartMs(pid);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `ps -o lstart=` in the C locale ("Sun Dec  6 17:05:35 2026", local time) as ms since the epoch. */
export function parseLstart(text: string): number | undefined {
  const m = /^[A-Z][a-z]{2} ([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(text.trim());
  const month = m ? MONTHS.indexOf(m[1]!) : -1;
  if (!m || month < 0) return undefined;
  return new Date(Number(m[6]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])).getTime();
}

function psStartMs(pid: number): number | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const text = psField(pid, "lstart");
  return text === undefined ? undefined : parseLstart(text);
}

function procStartMs(pid: number): number | undefined {
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
