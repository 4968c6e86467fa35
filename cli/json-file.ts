/**
 * Results that carry a JSON document the CLI saves (MethodDef.jsonFile: record start's trace). Before the call, an
 * --out that exists is refused unless --overwrite (so nothing starts that could not be saved); after it, the
 * document is written atomically (a temp file beside it, then a rename, or a hard link when it must not replace
 * anything) and the result gains `path`. Imported only by such commands.
 */
import { existsSync, linkSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import type { JsonFileSpec } from "../protocol/define.ts";
import { BskError } from "../protocol/errors.ts";
import { defaultPath, outExists } from "./file-result.ts";

type Env = Record<string, string | undefined>;

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

export function checkJsonOut(spec: JsonFileSpec, params: Record<string, unknown>): void {
  const out = params[spec.pathParam];
  if (typeof out !== "string" || !existsSync(out) || isDirectory(out)) return;
  if (params[spec.overwriteParam] !== true) throw outExists(out);
}

function destination(spec: JsonFileSpec, params: Record<string, unknown>, env: Env, now: Date): string {
  const asked = params[spec.pathParam];
  if (typeof asked !== "string") return defaultPath(env.TMPDIR || "/tmp", spec.defaultName, "json", now);
  return isDirectory(asked) ? defaultPath(asked, spec.defaultName, "json", now) : asked;
}

export function saveJsonFile(result: Record<string, unknown>, spec: JsonFileSpec, params: Record<string, unknown>, env: Env, now = new Date()): Record<string, unknown> {
  const doc = result[spec.data];
  if (doc === undefined) return result;
  const path = destination(spec, params, env, now);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o644 });
    if (params[spec.overwriteParam] === true) renameSync(tmp, path);
    else {
      // Created meanwhile by someone else: kept, and this one is refused.
      linkSync(tmp, path);
      unlinkSync(tmp);
    }
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* never written */
    }
    if ((err as NodeJS.ErrnoException).code === "EEXIST") throw outExists(path);
    throw new BskError("invalid_params", `cannot write ${path}: ${err instanceof Error ? err.message : String(err)}`, {
      hint: "Give --out a path in a directory that exists and is writable.",
      data: { reason: "file_not_written", path },
    });
  }
  return { ...result, path };
}
