/**
 * Run by extension-takeover-recording.test.ts in a process of its own: the worker's modules bind `chrome` when first
 * imported, so they get the fake browser here without touching the other unit tests' module cache. Prints JSON.
 */
import { fakeBrowser } from "wxt/testing/fake-browser";

(globalThis as { chrome?: unknown }).chrome = fakeBrowser;
const { addSession, sessionsReady } = await import("../../../extension/src/session/sessions.ts");
const { dropRecording, putRecording, recordingsReady } = await import("../../../extension/src/session/recordings.ts");
const control = await import("../../../extension/src/features/control.ts");
await Promise.all([sessionsReady(), recordingsReady(), control.controlReady()]);

const win = (await fakeBrowser.windows.create({}))!;
const tab = await fakeBrowser.tabs.create({ windowId: win.id });
addSession({ session_id: "rec1", window_id: win.id!, tab_id: tab.id! });
const rec = {
  session_id: "rec1",
  tab_id: tab.id!,
  start_url: "http://127.0.0.1/",
  started_at: new Date().toISOString(),
  deadline_at: Date.now() + 60_000,
  pages: [],
  steps: [],
} as Parameters<typeof putRecording>[0];
await putRecording(rec);
// The daemon's record.await, waiting for the trace.
const waiting = await control.beginCall("record.await", { session_id: "rec1" }, new AbortController().signal);

const out: Record<string, unknown> = {};
out.while_recording = await control.takeOver("rec1", tab.id, "input");
rec.ended = { stopped_by: "tab_closed", recorded_at: new Date().toISOString() };
out.ended_not_collected = await control.takeOver("rec1", tab.id, "input");
out.wait_cut_off = waiting.signal.aborted;
waiting.end();
await dropRecording(rec);
out.after_collected = await control.takeOver("rec1", tab.id, "input");
console.log(JSON.stringify(out));
process.exit(0);
