/**
 * The calls in flight for each session, whichever link they came on, so that a session the person ends (Stop, its
 * window or group closed) ends its calls too, each with an answer that says so, before its tabs go. Otherwise a call
 * would fail on whatever its closing tab broke first (a detached debugger, "cdp_failed"), which says less than is
 * known. A call that already had its own answer (an approval that ended because its tab closed) keeps it.
 */
import { getMethod, isMethodName } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";

const calls = new Map<string, Set<AbortController>>();

/** Tracks a call of `sessionId` until the returned function is called. */
export function trackSessionCall(sessionId: string | undefined, method: string, ac: AbortController): () => void {
  // A call the session's end answers (the catalog's answeredByTheEnd: a recording's wait ends with its trace).
  if (sessionId === undefined || (isMethodName(method) && getMethod(method).answeredByTheEnd)) return () => {};
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
