/**
 * Take over and Resume, from the person (the extension's overlay or popup, or their own input in a session's tab).
 * Taking over marks the session taken_over, which the effect gate reads: actions on and reads of its pages fail with
 * user_aborted (reason taken_over) until Resume, while control-plane calls pass. Every call of the session in flight or queued is cut off
 * now with that same error; one already at the extension is cancelled there too (BrowserConn sends `cancel`).
 * The refs' epoch lives in the extension, which makes refs from before the takeover stale when it reports it.
 */
import { takenOverError } from "./effect-gate.ts";
import type { EventSink } from "./event-log.ts";
import type { Logger } from "./log.ts";
import type { SessionRegistry, SessionRuntime } from "./sessions.ts";

export interface TakeoverDeps {
  sessions: SessionRegistry;
  events: EventSink;
  log: Logger;
}

export function takeOver(deps: TakeoverDeps, rt: SessionRuntime, tabId?: number, cause?: string): void {
  if (rt.record.state !== "live") {
    deps.log.debug("takeover ignored", { session: rt.id, state: rt.record.state });
    return;
  }
  rt.record.state = "taken_over";
  const cut = [...rt.calls];
  for (const call of cut) call.abort(takenOverError(rt.id));
  deps.sessions.persistNow();
  deps.events.append(rt.id, "session.takeover", {
    ...(tabId !== undefined && { tab_id: tabId }),
    ...(cause === "input" && { cause }),
    cancelled_calls: cut.length,
  });
  deps.log.info("session taken over by the person", { session: rt.id, tab_id: tabId, cause, cancelled: cut.map((c) => c.method) });
}

export function resume(deps: TakeoverDeps, rt: SessionRuntime, tabId?: number): void {
  if (rt.record.state !== "taken_over") return;
  rt.record.state = "live";
  deps.sessions.persistNow();
  deps.events.append(rt.id, "session.resume", tabId !== undefined ? { tab_id: tabId } : {});
  deps.log.info("session resumed by the person", { session: rt.id, tab_id: tabId });
}

/** The link's events that change who is in control; true when `name` was one of them. */
export function onControlEvent(
  deps: TakeoverDeps,
  rt: SessionRuntime,
  name: string,
  payload: { tab_id?: unknown; cause?: unknown },
): boolean {
  const tabId = typeof payload.tab_id === "number" ? payload.tab_id : undefined;
  if (name === "session.takeover") takeOver(deps, rt, tabId, typeof payload.cause === "string" ? payload.cause : undefined);
  else if (name === "session.resume") resume(deps, rt, tabId);
  else return false;
  return true;
}
