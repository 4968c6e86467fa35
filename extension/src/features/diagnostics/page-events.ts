/**
 * What the diagnostics buffers see that belongs in the session's event stream: console errors (console.error and
 * assert, uncaught exceptions, the browser's own error messages except its notes on failed loads, which are
 * request.failed already) and failed requests (network errors and HTTP ≥ 400), coalesced per tab. Of what Runtime
 * and Log replay when capture starts, only messages newer than the tab's mark (outbox.ts markReported) are events:
 * a fresh attachment marks its start (what came before stays in the buffers), a restarted worker's replay brings
 * what its predecessor never reported.
 */
import type { ConsoleEntry, ConsoleOrigin } from "./console-log.ts";
import { isFailed, type RequestEntry } from "./network-log.ts";
import { emit, emitBurst, markReported } from "../../ports/outbox.ts";
import { ownerOfTab } from "../../session/sessions.ts";

/** Longest text an event carries (the buffers keep more: bsk console). */
const EVENT_TEXT_CHARS = 2000;
/** CDP's timestamps and the worker's clock may differ a little. */
export const REPLAY_SLACK_MS = 50;

const cut = (s: string) => (s.length > EVENT_TEXT_CHARS ? `${s.slice(0, EVENT_TEXT_CHARS)}…` : s);

/**
 * `reportedUpTo`: page time (ms since the epoch) up to which the tab's messages are in the stream already or are
 * left out (what was logged before capture began); a message at or before it is a replay.
 */
export function reportConsole(tabId: number, e: ConsoleEntry, origin: ConsoleOrigin, reportedUpTo: number): void {
  if (e.level !== "error" || origin === "network" || e.ts <= reportedUpTo) return;
  const owner = ownerOfTab(tabId);
  if (!owner) return;
  markReported(tabId, e.ts);
  emitBurst("console.error", tabId, {
    session_id: owner.session.session_id,
    tab_id: tabId,
    text: cut(e.text),
    ...(e.url !== undefined && { url: cut(e.url) }),
    ...(e.line !== undefined && { line: e.line }),
  });
}

export function reportRequest(tabId: number, e: RequestEntry, liveFrom: number): void {
  if (!isFailed(e) || e.ts < liveFrom - REPLAY_SLACK_MS) return;
  const owner = ownerOfTab(tabId);
  if (!owner) return;
  emitBurst("request.failed", tabId, {
    session_id: owner.session.session_id,
    tab_id: tabId,
    method: e.method,
    url: cut(e.url),
    type: e.type,
    status: e.status,
    ...(e.error !== undefined && { error: cut(e.error) }),
  });
}

/** Page events a restarted worker could not hold for the tab (diagnostics/capture.ts): the stream says so. */
export function reportLost(tabId: number, count: number, from: number, to: number): void {
  const owner = ownerOfTab(tabId);
  if (!owner) return;
  emit("events.lost", {
    session_id: owner.session.session_id,
    tab_id: tabId,
    count,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    reason: "worker_restart",
  });
}
