/**
 * Serving a daemon's requests on one link (local or remote): each request is dispatched with the link it came on,
 * and its reply, progress notes and cancel go back on that same socket. Every link keeps its own in-flight map, so
 * a cancel from one daemon never reaches a call of another.
 */
import { BROWSER_TIMEOUT_REPORT_MS, BskError, toErrorBody, type ErrorBody } from "../../../protocol/errors.ts";
import { CALL_PROGRESS, encodeFrame, MAX_FRAME_BYTES, type RequestFrame } from "../../../protocol/frames.ts";
import { framePieces } from "../../../protocol/pieces.ts";
import { errorMessage, raceAbort } from "../shared/abort.ts";
import { timeoutOnPage } from "../cdp/runaway.ts";
import { dispatch } from "../dispatch/dispatcher.ts";
import type { CallContext, Progress } from "../shared/handler.ts";
import { sessionsReady } from "../session/sessions.ts";
import { trackSessionCall } from "../session/session-calls.ts";
import { eventsHandedOver } from "../ports/outbox.ts";
import type { Served } from "./served.ts";

/** Least time between two progress notes about one call. */
const PROGRESS_MS = 200;

export function send(ws: WebSocket, frame: object): void {
  sendText(ws, encodeFrame(frame));
}

/** The daemon takes no message over 64 KiB: a larger frame goes in pieces (protocol/pieces.ts). */
export function sendText(ws: WebSocket, text: string): void {
  if (ws.readyState !== WebSocket.OPEN) return;
  for (const message of framePieces(text)) ws.send(message);
}

/** Progress notes about one request, at most one per PROGRESS_MS (the last is always sent once the work ends). */
function progressTo(ws: WebSocket, requestId: string | number): Progress {
  let last = 0;
  return (p) => {
    const now = performance.now();
    if (now - last < PROGRESS_MS && (p.total === undefined || p.done < p.total)) return;
    last = now;
    send(ws, { event: CALL_PROGRESS, payload: { request_id: requestId, ...p } });
  };
}

/** `origin`: where the call came from (remoteHost set for a remote link); the dispatcher checks session ownership. */
export async function serveRequest(
  ws: WebSocket,
  frame: RequestFrame,
  inflight: Map<string | number, Served>,
  origin: Pick<CallContext, "remoteHost">,
): Promise<void> {
  const started = performance.now();
  const reply = (body: { result: unknown } | { error: ErrorBody }) => {
    const meta = {
      ...(frame.meta?.trace_id ? { trace_id: frame.meta.trace_id } : {}),
      timings: { extension: Math.round((performance.now() - started) * 100) / 100 },
    };
    let text = encodeFrame({ id: frame.id, ...body, meta });
    if (text.length > MAX_FRAME_BYTES) {
      const error = new BskError("protocol_error", `the reply to ${frame.method} is larger than 16 MiB`, {
        data: { reason: "frame_too_large" },
      });
      text = encodeFrame({ id: frame.id, error: error.toBody(), meta });
    }
    sendText(ws, text);
  };

  if (frame.method === "cancel") {
    const target = (frame.params as { id?: string | number } | undefined)?.id;
    const served = target === undefined ? undefined : inflight.get(target);
    served?.ac.abort(new BskError("cancelled", "the call was cancelled"));
    return reply({ result: { cancelled: served !== undefined } });
  }

  const ac = new AbortController();
  const held = frame.meta?.hold ? Promise.withResolvers<void>() : undefined;
  const served: Served = { ac, ...(held && { durable: held.resolve }) };
  inflight.set(frame.id, served);
  const sessionId = (frame.params as { session_id?: unknown } | null)?.session_id;
  const untrack = trackSessionCall(typeof sessionId === "string" ? sessionId : undefined, frame.method, ac);
  const timeoutMs = frame.meta?.timeout_ms;
  const timedOut = new BskError("timeout", `${frame.method} did not finish within ${timeoutMs} ms`, {
    data: { timeout_ms: timeoutMs, stage: "extension" },
  });
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => ac.abort(timedOut), timeoutMs);
  try {
    await sessionsReady();
    const ctx: CallContext = {
      signal: ac.signal,
      ...(timeoutMs !== undefined && { deadline: Date.now() + timeoutMs }),
      progress: progressTo(ws, frame.id),
      ...(held && { held: held.promise }),
      ...(origin.remoteHost !== undefined && { remoteHost: origin.remoteHost }),
    };
    const result = await raceAbort(dispatch(frame.method, frame.params, ctx), ac.signal);
    // What the call emitted is on the socket before its reply, as an agent reading events right after expects.
    await eventsHandedOver();
    reply({ result });
  } catch (err) {
    // A chrome.* API that throws is the browser refusing; our own errors are already BskErrors.
    let bsk = err instanceof BskError ? err : new BskError("cdp_failed", `${frame.method}: ${errorMessage(err)}`);
    // Its own deadline: the answer says whether a script kept the page busy, and what bsk did about it.
    if (bsk === timedOut) bsk = await timeoutOnPage(timedOut, BROWSER_TIMEOUT_REPORT_MS);
    await eventsHandedOver();
    reply({ error: toErrorBody(bsk) });
  } finally {
    clearTimeout(timer);
    untrack();
    if (inflight.get(frame.id) === served) inflight.delete(frame.id);
  }
}
