/** The calls in flight per session (extension/src/session/session-calls.ts): the person ending a session ends them. */
import { expect, test } from "bun:test";
import { endSessionCalls, trackSessionCall } from "../../extension/src/session/session-calls.ts";

test("a session's end aborts its calls with cancelled naming the end; other sessions' calls and a recording's wait run on", () => {
  const click = new AbortController();
  const other = new AbortController();
  const recording = new AbortController();
  const done = new AbortController();
  trackSessionCall("aaaa", "click", click);
  trackSessionCall("bbbb", "click", other);
  trackSessionCall("aaaa", "record.await", recording);
  trackSessionCall("aaaa", "snapshot", done)();
  endSessionCalls("aaaa", "stopped_by_person");
  expect(click.signal.aborted).toBe(true);
  expect(click.signal.reason).toMatchObject({
    code: "cancelled",
    data: { reason: "session_ended", session_id: "aaaa", end_reason: "stopped_by_person" },
  });
  expect(other.signal.aborted).toBe(false);
  expect(recording.signal.aborted).toBe(false);
  expect(done.signal.aborted).toBe(false);
  // Once ended, nothing is left to end again; a call without a session is never tracked.
  endSessionCalls("aaaa", "window_closed");
  expect(click.signal.reason.data.end_reason).toBe("stopped_by_person");
  const loose = new AbortController();
  trackSessionCall(undefined, "tab.list", loose);
  endSessionCalls("bbbb", "window_closed");
  expect(other.signal.aborted).toBe(true);
  expect(loose.signal.aborted).toBe(false);
});
