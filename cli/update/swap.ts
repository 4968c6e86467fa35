/**
 * Replacing the installed binary: the new one is written to a random, exclusively created temp file (0755) in the
 * same directory (shared/atomic-file.ts), must run and report the expected version, then is renamed over `<bin>`
 * (atomic on Unix) while the old one is kept as `<bin>.previous` for rollback. Windows cannot replace a running
 * .exe but can rename it aside first.
 */
import { closeSync, constants, copyFileSync, fsyncSync, linkSync, openSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { openTemp, placeTemp, removeQuietly, writeAll } from "../../shared/atomic-file.ts";
import { BskError } from "../../protocol/errors.ts";

export const previousPath = (bin: string) => `${bin}.previous`;

function fsyncDir(path: string): void {
  if (process.platform === "win32") return;
  try {
    const fd = openSync(dirname(path), "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
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

/** Put `staged` in place of `bin`, keeping the old one as `<bin>.previous`. */
export function swapIn(bin: string, staged: string): string {
  const previous = previousPath(bin);
  rmSync(previous, { force: true });
  if (process.platform === "win32") {
    renameSync(bin, previous);
    renameSync(staged, bin);
  } else {
    try {
      linkSync(bin, previous);
    } catch {
      // EXCL: whatever appeared at <bin>.previous since the rm (a planted link) is not written through.
      copyFileSync(bin, previous, constants.COPYFILE_EXCL);
    }
    placeTemp(staged, bin, true);
  }
  fsyncDir(bin);
  return previous;
}

/** Put `<bin>.previous` back in place of `bin`. */
export function restorePrevious(bin: string): void {
  const previous = previousPath(bin);
  if (process.platform === "win32") rmSync(bin, { force: true });
  renameSync(previous, bin);
  fsyncDir(bin);
}
