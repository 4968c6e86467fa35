/**
 * The transfer plumbing (protocol/methods/files.ts), answered by the daemon for the CLI and, over the extension
 * link, for the extension: both name a live session, and a browser only its own sessions (transfer-link.ts).
 */
import type { ParsedParams } from "../../protocol/catalog.ts";
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

export const fileHandlers = Object.fromEntries(TRANSFER_METHODS.map((m) => [m, handler(m)])) as Record<TransferMethod, DaemonHandler>;
