/**
 * One request to the daemon on an open connection, for long-lived callers (bsk mcp, bsk doctor) that build their
 * own params instead of parsing argv: the frame's meta (trace id, deadline, op id for mutations) and cancellation
 * by an AbortSignal, which sends `cancel` on the same connection as Ctrl-C does for the CLI.
 */
import { BskError } from "../protocol/errors.ts";
import { call, nextRequestId, type Connection, type Reply } from "./daemon-client.ts";
import { GRACE_MS } from "./plan.ts";

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface RequestOptions {
  timeoutMs?: number;
  /** Idempotency key; give one for BrowserMutation calls. */
  opId?: string;
  signal?: AbortSignal;
  /** Hint for a connection lost mid-call (e.g. retry with the same op id). */
  dropHint?: string;
}

export async function request(
  conn: Connection,
  method: string,
  params: Record<string, unknown>,
  opts: RequestOptions = {},
): Promise<Reply> {
  const id = nextRequestId();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const traceId = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16).padStart(8, "0");
  const meta: Record<string, unknown> = { trace_id: traceId, timeout_ms: timeoutMs, client_pid: process.pid };
  if (opts.opId) meta.op_id = opts.opId;
  if (opts.signal?.aborted) {
    return {
      ok: false,
      interrupted: true,
      error: new BskError("cancelled", "cancelled before it was sent", { data: { confirmed: true } }),
    };
  }
  const cancel = () => conn.write(`${JSON.stringify({ id: `${id}.cancel`, method: "cancel", params: { id } })}\n`);
  opts.signal?.addEventListener("abort", cancel, { once: true });
  try {
    return await call(conn, { id, method, params, meta }, { giveUpMs: timeoutMs + GRACE_MS, dropHint: opts.dropHint });
  } finally {
    opts.signal?.removeEventListener("abort", cancel);
  }
}
