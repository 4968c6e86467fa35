/**
 * Transfers on the daemon's other links: the extension reads staged uploads and writes full-page captures over its
 * WebSocket (with system.file_url, local-files.ts, the only requests it may send after the handshake), and a download's result is completed with the
 * file the browser saved, taken into staging for the CLI to read.
 */
import { METHODS } from "../protocol/catalog.ts";
import { BskError, toErrorBody } from "../protocol/errors.ts";
import type { RequestFrame } from "../protocol/frames.ts";
import type { BrowserConn } from "./browsers.ts";
import type { Call } from "./call.ts";
import type { DaemonContext } from "./context.ts";
import { runTransfer, TRANSFER_METHODS, type TransferMethod } from "./handlers/files.ts";
import type { SessionRegistry } from "./sessions.ts";
import type { TransferStore } from "./transfers.ts";

export function isTransferMethod(method: string): method is TransferMethod {
  return (TRANSFER_METHODS as readonly string[]).includes(method);
}

/** A transfer request from an extension: answered with a response frame (never throws). */
export async function extensionTransfer(
  deps: { sessions: SessionRegistry; transfers?: TransferStore },
  conn: BrowserConn,
  frame: RequestFrame,
): Promise<object> {
  try {
    const method = frame.method as TransferMethod;
    const parsed = METHODS[method].params().safeParse(frame.params ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BskError("invalid_params", `${method}: params.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
    }
    const params = parsed.data as Record<string, unknown>;
    const rt = deps.sessions.get(String(params.session_id));
    if (!rt || rt.record.browser_instance_id !== conn.instanceId) {
      throw new BskError("permission_denied", `session ${String(params.session_id)} is not this browser's`, {
        data: { reason: "not_your_session" },
      });
    }
    return { id: frame.id, result: await runTransfer(deps.transfers, method, params) };
  } catch (err) {
    return { id: frame.id, error: toErrorBody(err) };
  }
}

/** Before a download acts: the session must have room to keep the file, or nothing is clicked (effect none). */
export function beforeBrowser(ctx: DaemonContext, call: Call): void {
  if (call.method === "download") ctx.transfers?.ensureRoom(String(call.params.session_id));
}

/** After a call that carried staged uploads, whatever its outcome: their places may be given back (transfers.ts). */
export function afterUploads(ctx: DaemonContext, call: Call): void {
  const param = (METHODS as Record<string, { transfer?: { upload?: string } }>)[call.method]?.transfer?.upload;
  const files = param ? call.params[param] : undefined;
  if (!ctx.transfers || !Array.isArray(files)) return;
  const ids = files.flatMap((f) => (typeof f?.transfer_id === "string" ? [f.transfer_id as string] : []));
  ctx.transfers.spend(String(call.params.session_id), ids);
}

/**
 * After the extension answered a download: move the file it names into staging and hand the CLI its transfer id.
 * The click has happened by then, so a failure here is reported with effect_state committed.
 */
export async function afterBrowser(ctx: DaemonContext, call: Call, result: unknown, conn?: BrowserConn): Promise<unknown> {
  if (call.method !== "download" || !result || typeof result !== "object") return result;
  const r = result as Record<string, unknown>;
  if (typeof r.local_path !== "string") return result;
  const sid = String(call.params.session_id);
  try {
    if (!ctx.transfers) throw new BskError("unsupported", "this daemon stages no files");
    // A path names a file on the browser's machine: a remote browser's path is never read on this one.
    if (conn?.record.device_id !== undefined)
      throw new BskError("protocol_error", "a remote browser named a file path instead of sending the download's bytes", {
        data: { reason: "download_path_refused" },
      });
    const staged = await ctx.transfers.importDownload(sid, r.local_path, String(r.mime ?? ""));
    const { local_path: _, ...rest } = r;
    return { ...rest, ...staged };
  } catch (err) {
    const body = toErrorBody(err);
    throw new BskError(body.code, `the download finished, but bsk could not take it: ${body.message}`, {
      hint: body.hint,
      data: { ...body.data, effect_state: "committed", url: r.url },
    });
  }
}
