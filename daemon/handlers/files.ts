/**
 * The transfer plumbing (protocol/methods/files.ts), answered by the daemon for the CLI and, over the extension
 * link, for the extension: both name a live session, and a browser only its own sessions (transfer-link.ts).
 */
import type { DaemonMethodName, ParsedParams, Result } from "../../protocol/catalog.ts";
import { BskError } from "../../protocol/errors.ts";
import type { TransferStore } from "../transfers.ts";
import type { DaemonHandler } from "./types.ts";

export type TransferMethod = Extract<DaemonMethodName, `transfer.${string}`>;

type Transfer<M extends TransferMethod> = (store: TransferStore, session: string, p: ParsedParams<M>) => Result<M> | Promise<Result<M>>;

const TRANSFERS: { [M in TransferMethod]: Transfer<M> } = {
  "transfer.begin": (store, sid, p) => store.begin(sid, p),
  "transfer.chunk": (store, sid, p) => store.chunk(sid, p.transfer_id, p.offset, p.data),
  "transfer.finish": (store, sid, p) => store.finish(sid, p.transfer_id, p),
  "transfer.read": (store, sid, p) => store.read(sid, p.transfer_id, p.offset, p.length),
  "transfer.release": (store, sid, p) => store.release(sid, p.transfer_id),
};

export const TRANSFER_METHODS = Object.keys(TRANSFERS) as TransferMethod[];

function storeOf(store: TransferStore | undefined): TransferStore {
  if (!store) throw new BskError("unsupported", "this daemon stages no files");
  return store;
}

/** A transfer the extension asked for on its link (transfer-link.ts), its params validated against the method's schema. */
export function runTransfer(store: TransferStore | undefined, method: TransferMethod, params: Record<string, unknown>): unknown {
  const run = TRANSFERS[method] as (store: TransferStore, session: string, p: Record<string, unknown>) => unknown;
  return run(storeOf(store), String(params.session_id), params);
}

const handler =
  <M extends TransferMethod>(method: M): DaemonHandler<M> =>
  async ({ call, ctx, params }) => {
    const sid = params.session_id;
    // Staging into an ended or unknown session is refused; releasing after its end is a no-op (all is gone).
    if (method !== "transfer.release") ctx.sessions.lookup(sid);
    call.sessionId = sid;
    return TRANSFERS[method](storeOf(ctx.transfers), sid, params);
  };

/** The downloads the session's tabs started, as the transfer store keeps them (extension/src/features/files/tab-downloads.ts). */
const downloads: DaemonHandler<"downloads"> = async ({ call, ctx, params: p }) => {
  ctx.sessions.lookup(p.session_id);
  call.sessionId = p.session_id;
  return { downloads: ctx.transfers?.downloads(p.session_id) ?? [] } satisfies Result<"downloads">;
};

/** The CLI writes the kept bytes to --out (cli/transfers.ts) and leaves them kept. */
const save: DaemonHandler<"downloads.save"> = async ({ call, ctx, params: p }) => {
  ctx.sessions.lookup(p.session_id);
  call.sessionId = p.session_id;
  if (!ctx.transfers) throw new BskError("unsupported", "this daemon stages no files");
  const d = ctx.transfers.keptDownload(p.session_id, p.download_id);
  return {
    download_id: d.download_id,
    url: d.url,
    name: d.name,
    mime: d.mime,
    size: d.size,
    sha256: d.sha256!,
    transfer_id: d.transfer_id,
  } satisfies Result<"downloads.save">;
};

export const fileHandlers = {
  "transfer.begin": handler("transfer.begin"),
  "transfer.chunk": handler("transfer.chunk"),
  "transfer.finish": handler("transfer.finish"),
  "transfer.read": handler("transfer.read"),
  "transfer.release": handler("transfer.release"),
  downloads,
  "downloads.save": save,
};
