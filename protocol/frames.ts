/**
 * Frames: the same three shapes on both links (CLI↔daemon JSONL, after the link proof of shared/link-proof.ts;
 * daemon↔extension WebSocket text).
 *   request  {id, method, params?, meta?}
 *   response {id, result, meta?} | {id, error:{code,message,hint?,data?}, meta?}
 *   event    {event, payload, seq?}
 * Anything else is answered with protocol_error and the connection lives on.
 */
import { z } from "zod";
import { MAX_CALL_MS } from "./duration.ts";
import { ERROR_CODES } from "./errors.ts";

export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** Per-request metadata carried beside the params. */
export const RequestMeta = z
  .object({
    trace_id: z.string().max(64).optional(),
    /** Deadline for the whole call including time queued, in ms from when the daemon received it. */
    timeout_ms: z.number().int().positive().max(MAX_CALL_MS).optional(),
    /** Idempotency key for BrowserMutation calls (ledger). */
    op_id: z.string().min(1).max(128).optional(),
    /** Pid of the calling CLI, for logs. */
    client_pid: z.number().int().optional(),
    /**
     * Daemon → extension only (a client's is ignored): the op's ledger line is not on disk yet, so nothing may reach
     * the page until an `op.durable` event names this request. Sent only to an extension that offers HOLD_INPUT.
     */
    hold: z.literal(true).optional(),
  })
  .strict();
export type RequestMeta = z.infer<typeof RequestMeta>;

/**
 * The handshake's `features` value of an extension that honours `meta.hold`: it prepares a held call (looks the target
 * up, checks it, arms its watchers) while the daemon's ledger syncs, and sends input only after `op.durable`.
 */
export const HOLD_INPUT = "hold_input";
/** Daemon → extension event: the held request `request_id` may act now (its op is on disk). */
export const OP_DURABLE = "op.durable";

/** Per-hop timings in ms, keyed by hop name (cli, daemon, queue, extension, cdp, ...). */
export const ResponseMeta = z
  .object({
    trace_id: z.string().optional(),
    timings: z.record(z.string(), z.number()).optional(),
  })
  .loose();
export type ResponseMeta = z.infer<typeof ResponseMeta>;

export const Id = z.union([z.string().min(1).max(128), z.number().int()]);

export const RequestFrame = z
  .object({
    id: Id,
    method: z.string().min(1).max(128),
    params: z.record(z.string(), z.unknown()).optional(),
    meta: RequestMeta.optional(),
  })
  .strict();
export type RequestFrame = z.infer<typeof RequestFrame>;

export const ErrorObject = z.object({
  code: z.enum(ERROR_CODES as [string, ...string[]]),
  message: z.string(),
  hint: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

export const SuccessFrame = z.object({ id: Id, result: z.unknown(), meta: ResponseMeta.optional() }).strict();
export const ErrorFrame = z.object({ id: Id.nullable(), error: ErrorObject, meta: ResponseMeta.optional() }).strict();
export const ResponseFrame = z.union([SuccessFrame, ErrorFrame]);
export type ResponseFrame = z.infer<typeof ResponseFrame>;

export const EventFrame = z
  .object({
    event: z.string().min(1).max(128),
    payload: z.unknown(),
    seq: z.number().int().nonnegative().optional(),
  })
  .strict();
export type EventFrame = z.infer<typeof EventFrame>;

/**
 * `call.progress`: how far a long call has come (a full-page capture's rows, a download's bytes). The extension
 * sends it about the daemon's request id, unnumbered (nothing is kept or resent); the daemon passes it to the CLI
 * that made the call, which draws it on a terminal. Never part of a result.
 */
export const CALL_PROGRESS = "call.progress";
export const CallProgress = z
  .object({
    request_id: Id,
    done: z.number().nonnegative(),
    /** Unknown (a download without Content-Length, a growing feed) when absent. */
    total: z.number().nonnegative().optional(),
    /** ms: time waited (done) of the most it waits (total), e.g. for a browser to connect. */
    unit: z.enum(["px", "bytes", "ms"]),
    label: z.string().max(80).optional(),
  })
  .strict();
export type CallProgress = z.infer<typeof CallProgress>;

export type Frame =
  | { kind: "request"; frame: RequestFrame }
  | { kind: "response"; frame: ResponseFrame }
  | { kind: "event"; frame: EventFrame };

export type ParseResult = { ok: true; value: Frame } | { ok: false; id: string | number | null; message: string };

/** Classify and validate one raw frame. Never throws. */
export function parseFrame(text: string): ParseResult {
  if (text.length > MAX_FRAME_BYTES) return { ok: false, id: null, message: "frame larger than 16 MiB" };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, id: null, message: "frame is not valid JSON" };
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    return { ok: false, id: null, message: "frame must be a JSON object" };
  }
  const obj = raw as Record<string, unknown>;
  const id = typeof obj.id === "string" || typeof obj.id === "number" ? obj.id : null;
  if ("method" in obj) {
    const r = RequestFrame.safeParse(obj);
    return r.success ? { ok: true, value: { kind: "request", frame: r.data } } : bad(id, "request", r.error);
  }
  if ("result" in obj || "error" in obj) {
    if ("result" in obj && "error" in obj) return { ok: false, id, message: "response has both result and error" };
    const r = ResponseFrame.safeParse(obj);
    return r.success ? { ok: true, value: { kind: "response", frame: r.data } } : bad(id, "response", r.error);
  }
  if ("event" in obj) {
    const r = EventFrame.safeParse(obj);
    return r.success ? { ok: true, value: { kind: "event", frame: r.data } } : bad(id, "event", r.error);
  }
  return { ok: false, id, message: "frame is neither a request, a response nor an event" };
}

function bad(id: string | number | null, what: string, error: z.ZodError): ParseResult {
  const first = error.issues[0];
  const where = first?.path.length ? ` at ${first.path.join(".")}` : "";
  return { ok: false, id, message: `malformed ${what} frame${where}: ${first?.message ?? "invalid"}` };
}

/** Serialise one frame as one line (no embedded newlines: JSON.stringify escapes them). */
export function encodeFrame(frame: object): string {
  return JSON.stringify(frame);
}
