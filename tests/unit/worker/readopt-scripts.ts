/**
 * Run by extension-readopt-scripts.test.ts in a process of its own (the worker's modules bind `chrome` when first
 * imported). A session that observes `dom` has its tab attached twice: first by this worker (a fresh attachment), then
 * as a restarted worker finds it (chrome.debugger says it is attached already: a re-adoption). Prints which commands
 * each attachment sent for the observer: the binding goes again (Runtime.disable dropped it), the script does not
 * (the attachment kept its registration; adding it again would run it once more in every later document).
 */
import { fakeBrowser } from "wxt/testing/fake-browser";

const sent: { tabId: number; method: string; params: Record<string, unknown> }[] = [];
let attached = false;
(fakeBrowser as { debugger?: unknown }).debugger = {
  attach: async () => {
    if (attached) throw new Error("Another debugger is already attached to the tab with id: 5.");
    attached = true;
  },
  detach: async () => undefined,
  sendCommand: async (target: { tabId: number }, method: string, params: Record<string, unknown>) => {
    sent.push({ tabId: target.tabId, method, params });
    if (method === "Page.addScriptToEvaluateOnNewDocument") return { identifier: String(sent.length) };
    return {};
  },
  onEvent: { addListener: () => undefined },
  onDetach: { addListener: () => undefined },
};
(globalThis as { chrome?: unknown }).chrome = fakeBrowser;
// The recorder's script text, as the extension would fetch it from its own package.
const realFetch = globalThis.fetch;
globalThis.fetch = (async (url: string | URL | Request, init?: RequestInit) =>
  String(url).startsWith("chrome-extension://") ? new Response("/* recorder */") : realFetch(url, init)) as typeof fetch;
const { attach, detach, installCdpListeners } = await import("../../../extension/src/cdp/debugger.ts");
const { addSession, sessionsReady } = await import("../../../extension/src/session/sessions.ts");
const { installObserve, observeSession } = await import("../../../extension/src/features/observe.ts");
const { installRecorder } = await import("../../../extension/src/features/recording/recorder.ts");
const { putRecording, recordingOfTab, recordingsReady } = await import("../../../extension/src/session/recordings.ts");

installCdpListeners();
installObserve();
installRecorder();
await sessionsReady();
addSession({ session_id: "s1", window_id: 1, tab_id: 5 });
await observeSession("s1", ["dom"]);
// A recording running in the same tab.
await recordingsReady();
await putRecording({
  session_id: "s1",
  tab_id: 5,
  start_url: "https://a.test/",
  started_at: new Date().toISOString(),
  deadline_at: Date.now() + 60_000,
  pages: [],
  steps: [],
});

/** The binding and script commands sent since `from` for the feature with this binding and world. */
const commandsOf = (binding: string, world: string) => (from: number) =>
  sent
    .slice(from)
    .filter(
      (c) =>
        (c.method === "Runtime.addBinding" && c.params.name === binding) ||
        (c.method === "Page.addScriptToEvaluateOnNewDocument" && c.params.worldName === world),
    )
    .map((c) => c.method);
const recorder = commandsOf("__bskRecord", "bsk-record");
const observer = commandsOf("__bskObserve", "bsk-observe");

await attach(5);
const fresh = observer(0);
const recorderFresh = recorder(0);
const idAfterFresh = recordingOfTab(5)?.script_id;
// As a restarted worker: it knows no attachment, the browser's stays (this fake's detach leaves it).
await detach(5);
const before = sent.length;
await attach(5);
const readopted = observer(before);
console.log(
  JSON.stringify({
    fresh,
    readopted,
    recorder: { fresh: recorderFresh, readopted: recorder(before), kept_id: recordingOfTab(5)?.script_id === idAfterFresh },
  }),
);
process.exit(0);
