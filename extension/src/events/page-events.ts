/**
 * What the diagnostics buffers see that belongs in the session's event stream: console errors (console.error and
 * assert, uncaught exceptions, the browser's own error messages except its notes on failed loads, which are
 * request.failed already) and failed requests (network errors and HTTP ≥ 400), coalesced per tab. Messages Runtime and Log replay when capture starts (they happened before, and may already have
 * been reported by an earlier life of the worker) stay in the buffers only.
 */
import type { ConsoleEntry, ConsoleOrigin } from "../diagnostics/console-log.ts";
import { isFailed, type RequestEntry } from "../diagnostics/network-log.ts";
import { emitBurst } from "../outbox.ts";
import { ownerOfTab } from "../sessions.ts";

/** Longest text an event carries (the buffers keep more: bsk console). */
const EVENT_TEXT_CHARS = 2000;
/** CDP's timestamps and the worker's clock may differ a little. */
const REPLAY_SLACK_MS = 50;

const cut = (s: string) => (s.length > EVENT_TEXT_CHARS ? `${s.slice(0, EVENT_TEXT_CHARS)}…` : s);

/** `liveFrom`: when capture started on the tab (ms since the epoch); anything older is a replay. */
export function reportConsole(tabId: number, e: ConsoleEntry, origin: ConsoleOrigin, liveFrom: number): void {
  if (e.level !== "error" || origin === "network" || e.ts < liveFrom - REPLAY_SLACK_MS) return;
  const owner = ownerOfTab(tabId);
  if (!owner) return;
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
