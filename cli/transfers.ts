/**
 * The CLI's side of file transfers (protocol/methods/files.ts): it alone reads upload sources and writes download
 * destinations. Uploads are hashed, then staged in the daemon in chunks (the same bytes staged again in a session
 * are not sent twice, so a retry with the same --op-id sends the same params). Downloads and full-page captures are
 * read back in chunks into a temp file beside the destination, checked by size and SHA-256, then renamed into place;
 * a failure leaves no file behind. Imported only by commands with a transfer.
 */
import { existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import { checkOutPath } from "../shared/out-folder.ts";
import { checkReplaceable, openAtomic, type AtomicFile } from "../shared/atomic-file.ts";
import type { TransferSpec } from "../protocol/define.ts";
import { BskError } from "../protocol/errors.ts";
import { TRANSFER_CHUNK_BYTES } from "../protocol/methods/files.ts";
import type { Connection } from "./daemon-client.ts";
import { defaultPath, notWritten, outExists } from "./file-result.ts";
import { daemonCall, progress, readTransfer } from "./transfer-steps.ts";

type Env = Record<string, string | undefined>;

async function sha256File(path: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256");
  const file = Bun.file(path);
  const step = 8 * 1024 * 1024;
  for (let off = 0, size = file.size; off < size; off += step) h.update(await file.slice(off, off + step).arrayBuffer());
  return h.digest("hex");
}

function mimeOf(path: string): string {
  const t = Bun.file(path).type;
  return t === "application/octet-stream" ? "" : t.split(";")[0]!;
}

/** Stage one local file; returns the StagedFile the extension receives, and whether it was staged just now. */
async function stage(conn: Connection, sessionId: string, path: string): Promise<{ file: Record<string, unknown>; fresh: boolean }> {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new Error("not a regular file");
    size = st.size;
  } catch (err) {
    throw new BskError("invalid_params", `cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`, {
      hint: "Give --file the path of a readable file.",
      data: { reason: "file_unreadable", path },
    });
  }
  const name = basename(path);
  const mime = mimeOf(path);
  const sha256 = await sha256File(path);
  const begun = await daemonCall(conn, "transfer.begin", { session_id: sessionId, name, size, sha256, ...(mime && { mime }) });
  const id = begun.transfer_id as string;
  if (!begun.complete) {
    const bar = progress(`staging ${name}`);
    const file = Bun.file(path);
    try {
      for (let offset = 0; offset < size; ) {
        const bytes = new Uint8Array(await file.slice(offset, Math.min(size, offset + TRANSFER_CHUNK_BYTES)).arrayBuffer());
        if (!bytes.length)
          throw new BskError("invalid_params", `${path} shrank while it was read`, { data: { reason: "file_changed", path } });
        await daemonCall(conn, "transfer.chunk", { session_id: sessionId, transfer_id: id, offset, data: bytes.toBase64() });
        offset += bytes.length;
        bar.update(offset, size);
      }
    } finally {
      bar.end();
    }
    await daemonCall(conn, "transfer.finish", { session_id: sessionId, transfer_id: id, sha256 });
  }
  return { file: { transfer_id: id, name, size, sha256, mime }, fresh: !begun.complete };
}

/** Before the call: stage upload sources; refuse a download destination that exists (before anything is clicked). */
export async function beforeCall(conn: Connection, spec: TransferSpec, params: Record<string, unknown>): Promise<void> {
  const sessionId = String(params.session_id);
  if (spec.upload) {
    const paths = params[spec.upload];
    if (!Array.isArray(paths) || paths.length === 0) {
      throw new BskError("invalid_params", "give at least one --file PATH", { hint: "For example: --file ./report.pdf" });
    }
    const staged: Awaited<ReturnType<typeof stage>>[] = [];
    try {
      for (const path of paths) staged.push(await stage(conn, sessionId, String(path)));
    } catch (err) {
      // No call will carry what was staged for this one: its places go back to the session.
      for (const s of staged.filter((x) => x.fresh))
        await daemonCall(conn, "transfer.release", { session_id: sessionId, transfer_id: s.file.transfer_id }).catch(() => undefined);
      throw err;
    }
    params[spec.upload] = staged.map((s) => s.file);
  }
  const dl = spec.download;
  if (dl) {
    const out = params[dl.pathParam];
    if (dl.outRequired && typeof out !== "string") {
      throw new BskError("invalid_params", "give --out PATH: where to save the download", { hint: "For example: --out ./report.pdf" });
    }
    if (typeof out === "string") checkOutPath(out);
    if (dl.tilesParam && params[dl.tilesParam] === true) {
      const { checkFirstTile } = await import("./tile-files.ts");
      return checkFirstTile(dl, params);
    }
    if (typeof out === "string" && existsSync(out)) {
      if (statSync(out).isDirectory() && !dl.outRequired) return;
      checkReplaceable(out);
      if (params[dl.overwriteParam] !== true) throw outExists(out);
    }
  }
}

/** Where a transfer result goes: the given path, or a fresh one (a directory given, or none: the temp dir). */
function destination(spec: NonNullable<TransferSpec["download"]>, params: Record<string, unknown>, env: Env): string {
  const asked = params[spec.pathParam];
  const ext = spec.ext ?? "bin";
  if (typeof asked === "string") {
    if (!spec.outRequired && existsSync(asked) && statSync(asked).isDirectory())
      return defaultPath(asked, spec.defaultName, ext, new Date());
    return asked;
  }
  return defaultPath(env.TMPDIR || "/tmp", spec.defaultName, ext, new Date());
}

/** After the call: read the staged result into its destination, atomically; the output gets `path` instead of the id. */
export async function afterCall(
  conn: Connection,
  spec: TransferSpec,
  params: Record<string, unknown>,
  result: Record<string, unknown>,
  env: Env,
): Promise<Record<string, unknown>> {
  const dl = spec.download;
  const id = result.transfer_id;
  if (!dl || typeof id !== "string") return result;
  const sessionId = String(params.session_id);
  if (dl.tilesParam && params[dl.tilesParam] === true) {
    const { writeTiles } = await import("./tile-files.ts");
    const images = await writeTiles(conn, sessionId, id, dl, params, result, env);
    await daemonCall(conn, "transfer.release", { session_id: sessionId, transfer_id: id }).catch(() => undefined);
    const { transfer_id: _id, sha256: _sha, ...rest } = result;
    return { ...rest, images };
  }
  const path = destination(dl, params, env);
  const overwrite = params[dl.overwriteParam] === true;
  const size = Number(result.size ?? result.bytes);
  await fetchTo(conn, sessionId, id, path, { overwrite, size, sha256: String(result.sha256) });
  if (!dl.keep) await daemonCall(conn, "transfer.release", { session_id: sessionId, transfer_id: id }).catch(() => undefined);
  const { transfer_id: _id, local_path: _local, ...rest } = result;
  return { ...rest, path };
}

async function fetchTo(
  conn: Connection,
  sessionId: string,
  id: string,
  path: string,
  want: { overwrite: boolean; size: number; sha256: string },
): Promise<void> {
  let file: AtomicFile;
  try {
    // A download without --overwrite is linked into place at the end: a file that appeared meanwhile is kept.
    file = openAtomic(path, { mode: 0o644, replace: want.overwrite });
  } catch (err) {
    throw notWritten(path, err);
  }
  let committed = false;
  try {
    await readTransfer(conn, sessionId, id, want, `writing ${basename(path)}`, (bytes) => file.write(bytes));
    committed = true;
    file.commit();
  } catch (err) {
    if (!committed) file.abort();
    if ((err as NodeJS.ErrnoException).code === "EEXIST") throw outExists(path);
    throw notWritten(path, err);
  }
}
