/**
 * The doorbell's host side (`watch_daemon`, extension/src/link/doorbell.ts): stays up while the extension keeps the
 * native port open and says `daemon_up` whenever daemon.json appears or is rewritten in this home (a daemon writes
 * it once it listens), and once at the start when one is there already. Event-driven (a file-system watch on the
 * home folder); it ends when Chrome closes the port (stdin ends). It tells nothing but that a daemon wrote its file.
 */
import { statSync, watch } from "node:fs";
import { basename } from "node:path";
import type { HomePaths } from "../../shared/home.ts";

function stamp(file: string): string | null {
  try {
    const s = statSync(file);
    return `${s.mtimeMs}:${s.ino}:${s.size}`;
  } catch {
    return null;
  }
}

export async function watchDaemon(paths: HomePaths, write: (v: unknown) => Promise<unknown>, closed: Promise<void>): Promise<number> {
  const name = basename(paths.daemonJson);
  let last = stamp(paths.daemonJson);
  const watcher = watch(paths.home, (_event, file) => {
    if (file && file !== name) return;
    const now = stamp(paths.daemonJson);
    if (now && now !== last) void write({ type: "daemon_up" });
    last = now;
  });
  try {
    if (last) await write({ type: "daemon_up" });
    await closed;
    return 0;
  } finally {
    watcher.close();
  }
}
