/**
 * Replacing the installed binary: the new one is written as `<bin>.update-<pid>` (0755) in the same directory,
 * must run and report the expected version, then is renamed over `<bin>` (atomic on Unix) while the old one is
 * kept as `<bin>.previous` for rollback. Windows cannot replace a running .exe but can rename it aside first.
 */
import { closeSync, copyFileSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
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
  const staged = `${bin}.update-${process.pid}`;
  rmSync(staged, { force: true });
  let fd: number;
  try {
    fd = openSync(staged, "wx", 0o755);
  } catch (err) {
    throw new BskError("permission_denied", `cannot write next to ${bin}: ${(err as Error).message}`, {
      data: { reason: "install_dir_not_writable", path: dirname(bin) },
    });
  }
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(staged, { force: true });
    throw err;
  }
  closeSync(fd);
  return staged;
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
      copyFileSync(bin, previous);
    }
    renameSync(staged, bin);
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
