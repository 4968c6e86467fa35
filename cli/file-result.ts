/**
 * Results that carry a file (MethodDef.fileResult, e.g. screenshot): the CLI, not the daemon or the browser,
 * writes the bytes, to the path the command was given (made absolute by plan.ts) or to
 * $TMPDIR/<name>-<timestamp>.<format>. Written atomically (shared/atomic-file.ts: a random temp file beside it,
 * then a rename); an existing file is refused before the call unless --overwrite (then only a regular file is
 * replaced: a device, FIFO, socket or link never is); a directory given gets a new file in it.
 * The output then carries `path` and `bytes` instead of the base64 data. Imported only by commands that have a
 * file result.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkOutPath } from "../shared/out-folder.ts";
import { checkReplaceable, writeAtomic } from "../shared/atomic-file.ts";
import type { FileResultSpec } from "../protocol/define.ts";
import { BskError } from "../protocol/errors.ts";

type Env = Record<string, string | undefined>;

function stamp(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}-${p(d.getMilliseconds(), 3)}`;
}

/** A fresh default path in `dir`: never an existing file's. */
export function defaultPath(dir: string, name: string, ext: string, now: Date): string {
  const base = join(dir, `${name}-${stamp(now)}`);
  let path = `${base}.${ext}`;
  for (let n = 2; existsSync(path); n++) path = `${base}-${n}.${ext}`;
  return path;
}

/** An --out that exists and may not be replaced (no --overwrite): refused before the command does anything. */
export function outExists(path: string): BskError {
  return new BskError("invalid_params", `${path} already exists`, {
    hint: "Pass --overwrite to replace it, or choose another --out.",
    data: { reason: "out_exists", path },
  });
}

/** A write that failed: a refusal of the target (a BskError) as it is, anything else as file_not_written. */
export function notWritten(path: string, err: unknown, hint = "Give --out a path in a directory that exists and is writable."): BskError {
  if (err instanceof BskError) return err;
  return new BskError("invalid_params", `cannot write ${path}: ${err instanceof Error ? err.message : String(err)}`, {
    hint,
    data: { reason: "file_not_written", path },
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Before the call: an --out that exists is refused unless --overwrite (a directory takes a new file). */
export function checkFileOut(spec: FileResultSpec, params: Record<string, unknown>): void {
  const asked = params[spec.pathParam];
  if (typeof asked !== "string") return;
  checkOutPath(asked);
  if (!existsSync(asked) || isDirectory(asked)) return;
  checkReplaceable(asked);
  if (params[spec.overwriteParam] !== true) throw outExists(asked);
}

/** Writes the result's bytes and returns the result with `path` and `bytes` in place of the data. */
export function saveFileResult(
  result: Record<string, unknown>,
  spec: FileResultSpec,
  params: Record<string, unknown>,
  env: Env,
  now = new Date(),
): Record<string, unknown> {
  const data = result[spec.data];
  if (typeof data !== "string") return result;
  const ext = typeof result.format === "string" ? result.format : "bin";
  const asked = params[spec.pathParam];
  let path: string;
  if (typeof asked === "string") path = isDirectory(asked) ? defaultPath(asked, spec.defaultName, ext, now) : asked;
  else path = defaultPath(env.TMPDIR || "/tmp", spec.defaultName, ext, now);

  const bytes = Buffer.from(data, "base64");
  try {
    // Without --overwrite, a file that appeared during the call is kept and this one refused.
    writeAtomic(path, bytes, { mode: 0o644, replace: params[spec.overwriteParam] === true });
  } catch (err) {
    throw notWritten(
      path,
      err,
      "Give --out a path in a directory that exists and is writable, or leave --out out to use the temp directory.",
    );
  }
  const { [spec.data]: _data, ...rest } = result;
  return { ...rest, path, bytes: bytes.length };
}
