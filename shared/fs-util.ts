/** Private files and directories: dirs 0700, files 0600, whole-file replacement by rename. */
import { chmodSync, mkdirSync, readdirSync, rmdirSync, rmSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic } from "./atomic-file.ts";

export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  // mkdir's mode is masked by the umask and ignored for a directory that already exists.
  chmodSync(path, 0o700);
}

/**
 * Write a whole private file (0600) so readers see the old or the new content, never a torn one. Not fsync'd:
 * sessions.json is rewritten up to once a second on the daemon's event loop (and on session start's reply path),
 * where an fsync under I/O load would hold every call.
 */
export function writeFileAtomic(path: string, data: string): void {
  writeAtomic(path, data, { mode: 0o600, replace: true, fsync: false });
}

export { readJsonFile } from "./read-json.ts";

export function removeFile(path: string): void {
  rmSync(path, { force: true });
}

/**
 * Remove a folder and everything in it (nothing when it is missing). Wine 8 (Debian 12) fails Bun's recursive rm of
 * any folder with EFAULT; there the tree is walked and removed entry by entry (links removed, never followed).
 */
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EFAULT") throw err;
    removeWalking(path);
  }
}

function removeWalking(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) removeWalking(path);
    else unlinkSync(path);
  }
  rmdirSync(dir);
}
