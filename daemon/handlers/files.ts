/**
 * The transfer plumbing (protocol/methods/files.ts), answered by the daemon for the CLI and, over the extension
 * link, for the extension: both name a live session, and a browser only its own sessions (transfer-link.ts).
 */
import type { ParsedParams, Result } from "../../protocol/catalog.ts";
import { BskError } from "../../protocol/errors.ts";
import type { TransferStore } from "../transfers.ts";
import type { DaemonHandler } from "./types.ts";

export type TransferMethod = "transfer.begin" | "transfer.chunk" | "transfer.finish" | "transfer.read" | "transfer.release";

export const TRANSFER_METHODS: readonly TransferMethod[] = ["transfer.begin", "transfer.chunk", "transfer.finish", "transfer.read", "transfer.release"];

export function runTransfer(store: TransferStore | undefined, method: TransferMethod, params: Record<string, unknown>): Promise<unknown> | unknown {
  if (!store) throw new BskError("unsupported", "this daemon stages no files");
  const sid = String(params.session_id);
  switch (method) {
    case "transfer.begin": {
      const p = params as ParsedParams<"transfer.begin">;
      return store.begin(sid, p);
    }
    case "transfer.chunk": {
      const p = params as ParsedParams<"transfer.chunk">;
      return store.chunk(sid, p.transfer_id, p.offset, p.data);
    }
    case "transfer.finish": {
      const p = params as ParsedParams<"transfer.finish">;
      return store.finish(sid, p.transfer_id, p);
    }
    case "transfer.read": {
      const p = params as ParsedParams<"transfer.read">;
      return store.read(sid, p.transfer_id, p.offset, p.length);
    }
    case "transfer.release": {
      const p = params as ParsedParams<"transfer.release">;
      return store.release(sid, p.transfer_id);
    }
  }
}

const handler =
  (method: TransferMethod): DaemonHandler =>
  async ({ call, ctx }) => {
    const sid = String(call.params.session_id);
    // Staging into an ended or unknown session is refused; releasing after its end is a no-op (all is gone).
    if (method !== "transfer.release") ctx.sessions.lookup(sid);
    call.sessionId = sid;
    return runTransfer(ctx.transfers, method, call.params);
  };

/** The downloads the session's tabs started, as the transfer store keeps them (extension/src/features/files/tab-downloads.ts). */
const downloads: DaemonHandler = async ({ call, ctx }) => {
  const p = call.params as ParsedParams<"downloads">;
  ctx.sessions.lookup(p.session_id);
  call.sessionId = p.session_id;
  return { downloads: ctx.transfers?.downloads(p.session_id) ?? [] } satisfies Result<"downloads">;
};

/** The CLI writes the kept bytes to --out (cli/transfers.ts) and leaves them kept. */
const save: DaemonHandler = async ({ call, ctx }) => {
  const p = call.params as ParsedParams<"downloads.save">;
  ctx.sessions.lookup(p.session_id);
  call.sessionId = p.session_id;
  if (!ctx.transfers) throw new BskError("unsupported", "this daemon stages no files");
  const d = ctx.transfers.keptDownload(p.session_id, p.download_id);
  return { download_id: d.download_id, url: d.url, name: d.name, mime: d.mime, size: d.size, sha256: d.sha256!, transfer_id: d.transfer_id } satisfies Result<"downloads.save">;
};

export const fileHandlers = {
  ...(Object.fromEntries(TRANSFER_METHODS.map((m) => [m, handler(m)])) as Record<TransferMethod, DaemonHandler>),
  downloads,
  "downloads.save": save,
};
