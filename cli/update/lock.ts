/**
 * `<bin>.update.lock` next to the installed binary serializes updates (a person's `bsk update` and the daemon's
 * automatic one). It holds the updater's pid; a lock whose process is gone is taken over by renaming it aside.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { pidAlive } from "../../shared/pid.ts";
import { BskError } from "../../protocol/errors.ts";

function tryCreate(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new BskError("permission_denied", `cannot write next to the installed bsk (${path}): ${(err as Error).message}`, {
      data: { reason: "install_dir_not_writable", path },
    });
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function holder(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function inProgress(path: string, pid: number): BskError {
  return new BskError("unsupported", `another bsk update (pid ${pid}) is running`, {
    data: { reason: "update_in_progress", lock: path, pid },
  });
}

/** Take the lock or throw update_in_progress; returns its release. */
export function acquireUpdateLock(bin: string): () => void {
  const path = `${bin}.update.lock`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path)) return () => rmSync(path, { force: true });
    const pid = holder(path);
    if (pid !== undefined && pidAlive(pid)) throw inProgress(path, pid);
    const aside = `${path}.stale.${process.pid}`;
    try {
      renameSync(path, aside);
    } catch {
      continue;
    }
    // Another updater may have replaced the stale lock between our read and the rename: give it back.
    const moved = holder(aside);
    if (moved !== undefined && moved !== pid && pidAlive(moved)) {
      try {
        renameSync(aside, path);
      } catch {
        // it will find its lock gone only when it releases it; nothing else depends on it
      }
      throw inProgress(path, moved);
    }
    rmSync(aside, { force: true });
  }
  throw inProgress(path, holder(path) ?? 0);
}
