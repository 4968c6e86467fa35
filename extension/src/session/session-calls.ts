/**
 * The calls in flight for each session, whichever link they came on, so that a session the person ends (Stop, its
 * window or group closed) ends its calls too, each with an answer that says so, before its tabs go. Otherwise a call
 * would fail on whatever its closing tab broke first (a detached debugger, "cdp_failed"), which says less than is
 * known. A call that already had its own answer (an approval that ended because its tab closed) keeps it.
 */
import { BskError } from "../../../protocol/errors.ts";

const calls = new Map<string, Set<AbortController>>();

/** Calls whose answer the session's end is: a recording's wait ends with what it captured (recording/recorder.ts). */
const ANSWERED_BY_THE_END: ReadonlySet<string> = new Set(["record.await"]);

/** Tracks a call of `sessionId` until the returned function is called. */
export function trackSessionCall(sessionId: string | undefined, method: string, ac: AbortController): () => void {
  if (sessionId === undefined || ANSWERED_BY_THE_END.has(method)) return () => {};
  let set = calls.get(sessionId);
  if (!set) calls.set(sessionId, (set = new Set()));
  set.add(ac);
  return () => {
    set.delete(ac);
    if (set.size === 0 && calls.get(sessionId) === set) calls.delete(sessionId);
  };
}

/** Ends every call of the session still running: `cancelled`, the session's end named in its data. */
export function endSessionCalls(sessionId: string, reason: string): void {
  const set = calls.get(sessionId);
  if (!set) return;
  calls.delete(sessionId);
  const err = new BskError("cancelled", `the session ended (${reason}) during the call`, {
    data: { reason: "session_ended", session_id: sessionId, end_reason: reason },
  });
  for (const ac of set) ac.abort(err);
}
