/**
 * Replacing the installed binary: the new one is written to a random, exclusively created temp file (0755) in the
 * same directory (shared/atomic-file.ts), must run and report the expected version, then is put in place of `<bin>`.
 * Unix: renamed over it (atomic) while the old one is kept as `<bin>.previous` for rollback. Windows cannot
 * replace or delete a running .exe (the `bsk update` doing this runs from it) but can rename it: the old one is
 * moved aside to a free `<bin>.old-<n>`, which the next start removes (shared/swapped-out.ts). The platform is a
 * parameter so the Windows order is tested on Linux too.
 */
import { closeSync, constants, copyFileSync, existsSync, fsyncSync, linkSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { fsyncDir } from "../../shared/fsync-dir.ts";
import { openTemp, placeTemp, removeQuietly, writeAll } from "../../shared/atomic-file.ts";
import { swappedOutPath } from "../../shared/swapped-out.ts";
import { BskError } from "../../protocol/errors.ts";

export const previousPath = (bin: string) => `${bin}.previous`;

/** The first `<bin>.old-<n>` not taken (one still running from an earlier update keeps its name until it exits). */
function freeAside(bin: string): string {
  for (let n = 1; ; n++) if (!existsSync(swappedOutPath(bin, n))) return swappedOutPath(bin, n);
}

function syncFolderOf(path: string): void {
  try {
    fsyncDir(dirname(path));
  } catch {
    // Best effort: some file systems refuse to fsync a directory.
  }
}

/** Write the new binary next to the installed one; returns its path. */
export function stage(bin: string, bytes: Uint8Array): string {
  let opened: { fd: number; tmp: string };
  try {
    opened = openTemp(bin, 0o755);
  } catch (err) {
    if (err instanceof BskError) throw err;
    throw new BskError("permission_denied", `cannot write next to ${bin}: ${(err as Error).message}`, {
      data: { reason: "install_dir_not_writable", path: dirname(bin) },
    });
  }
  const { fd, tmp } = opened;
  try {
    writeAll(fd, bytes);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    removeQuietly(tmp);
    throw err;
  }
  closeSync(fd);
  return tmp;
}

/** Run `<staged> version --json` and require `expected`. */
export async function checkReportsVersion(staged: string, expected: string, timeoutMs = 15_000): Promise<void> {
  let said = "";
  try {
    const proc = Bun.spawn([staged, "version", "--json"], { stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: timeoutMs });
    said = (await new Response(proc.stdout).text()).trim();
    const code = await proc.exited;
    const version = code === 0 ? (JSON.parse(said) as { result?: { version?: unknown } }).result?.version : undefined;
    if (version === expected) return;
  } catch {
    // falls through to the refusal
  }
  throw new BskError("unsupported", `the downloaded bsk does not run here or is not version ${expected}`, {
    data: { reason: "new_binary_broken", output: said.slice(0, 500) },
  });
}

/** Put `staged` in place of `bin`; returns where the old one is kept (`<bin>.previous`, on Windows `<bin>.old-<n>`). */
export function swapIn(bin: string, staged: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === "win32") {
    const aside = freeAside(bin);
    renameSync(bin, aside);
    try {
      renameSync(staged, bin);
    } catch (err) {
      renameSync(aside, bin);
      throw err;
    }
    return aside;
  }
  const previous = previousPath(bin);
  rmSync(previous, { force: true });
  try {
    linkSync(bin, previous);
  } catch {
    // EXCL: whatever appeared at <bin>.previous since the rm (a planted link) is not written through.
    copyFileSync(bin, previous, constants.COPYFILE_EXCL);
  }
  placeTemp(staged, bin, true);
  syncFolderOf(bin);
  return previous;
}

/**
 * Put `previous` (what swapIn returned) back in place of `bin`. On Windows the refused new binary is moved aside
 * too, not deleted: a daemon of it that was just killed may still hold its file.
 */
export function restorePrevious(bin: string, previous: string, platform: NodeJS.Platform = process.platform): void {
  if (platform === "win32") renameSync(bin, freeAside(bin));
  renameSync(previous, bin);
  syncFolderOf(bin);
}
