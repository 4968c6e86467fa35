/**
 * Results that carry a JSON document the CLI saves (MethodDef.jsonFile: record start's trace). Before the call, an
 * --out that exists is refused unless --overwrite, and one that is not a regular file (a device, FIFO, socket,
 * link) always is (so nothing starts that could not be saved); after it, the document is written atomically
 * (shared/atomic-file.ts: a random temp file beside it, then a rename, or a hard link when it must not replace
 * anything) and the result gains `path`. Imported only by such commands.
 */
import { existsSync, statSync } from "node:fs";
import { checkOutPath } from "../shared/out-folder.ts";
import { checkReplaceable, writeAtomic } from "../shared/atomic-file.ts";
import type { JsonFileSpec } from "../protocol/define.ts";
import { defaultPath, notWritten, outExists } from "./file-result.ts";

type Env = Record<string, string | undefined>;

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

export function checkJsonOut(spec: JsonFileSpec, params: Record<string, unknown>): void {
  const out = params[spec.pathParam];
  if (typeof out !== "string") return;
  checkOutPath(out);
  if (!existsSync(out) || isDirectory(out)) return;
  checkReplaceable(out);
  if (params[spec.overwriteParam] !== true) throw outExists(out);
}

function destination(spec: JsonFileSpec, params: Record<string, unknown>, env: Env, now: Date): string {
  const asked = params[spec.pathParam];
  if (typeof asked !== "string") return defaultPath(env.TMPDIR || "/tmp", spec.defaultName, "json", now);
  return isDirectory(asked) ? defaultPath(asked, spec.defaultName, "json", now) : asked;
}

export function saveJsonFile(
  result: Record<string, unknown>,
  spec: JsonFileSpec,
  params: Record<string, unknown>,
  env: Env,
  now = new Date(),
): Record<string, unknown> {
  const doc = result[spec.data];
  if (doc === undefined) return result;
  const path = destination(spec, params, env, now);
  try {
    // Without --overwrite, a file created meanwhile by someone else is kept, and this one is refused.
    writeAtomic(path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o644, replace: params[spec.overwriteParam] === true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") throw outExists(path);
    throw notWritten(path, err);
  }
  return { ...result, path };
}
