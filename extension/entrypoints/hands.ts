/**
 * The hands content script, in every frame of every page from document start (manifest content_scripts). It notes
 * each trusted press, key, edit or drop in its document (HAND_KINDS) and tells the worker, which decides whether the
 * agent or the person made it (src/hands/agent-input.ts), when its tab is a session's (the worker says so when the tab
 * joins or leaves one) or, until told, when the page loaded while some session was live (LIVE_GLOBAL). It keeps the
 * last few for the worker's drain. Events on bsk's own overlay (pill, help panel) are not the page's and are left out.
 *
 * Listening on window in the capture phase, registered before any page script runs, means a page cannot stop these
 * events from reaching it; page scripts cannot see this world, and cannot make a trusted event.
 * Built as an unlisted script listed in the manifest by hand, like the overlay (see there why).
 */
import { browser } from "wxt/browser";
import { defineUnlistedScript } from "wxt/utils/define-unlisted-script";
import {
  HAND_KINDS,
  HANDS_GLOBAL,
  OVERLAY_HOST_GLOBAL,
  type HandEvent,
  type HandKind,
  type HandsDrain,
  type HandsReport,
} from "../src/shared/messages/hands.ts";
import { KEEPALIVE, liveHere } from "../src/shared/messages/keepalive.ts";

/** Kept for the drain: more than one agent action can make, far less than memory minds. */
const KEEP = 256;
/**
 * Reports wait this long and go as one, for the newest event: the worker decides every earlier event of the document
 * with it. The agent's own input comes in bursts (a typed character is a keydown and a beforeinput), and each message
 * held up the agent's input in the browser (three typed characters: 10.2 ms with a message per event, 6.4 ms
 * batched). The agent's events are decided by the drain anyway, and a person's are told this little later. Only in a
 * shown page: a hidden one's timers run late (up to a second), and by then its tab may have become a session's (lent),
 * which would make the person's typing before that look like typing in the session; so a hidden page reports at once,
 * and a page that is being hidden sends what it holds.
 */
const REPORT_AFTER_MS = 32;
/** A modifier alone is not an action on the page (Alt-Tab away from the browser starts with one). */
const MODIFIER_KEYS = new Set([
  "Shift",
  "Control",
  "Alt",
  "AltGraph",
  "Meta",
  "OS",
  "CapsLock",
  "Fn",
  "FnLock",
  "Hyper",
  "Super",
  "Symbol",
  "NumLock",
  "ScrollLock",
]);

export default defineUnlistedScript(() => {
  const g = globalThis as Record<string, unknown>;
  if (g[HANDS_GLOBAL]) return;
  const doc = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
  let seq = 0;
  const kept: HandEvent[] = [];
  /** What the worker last said of this tab (KEEPALIVE start or stop); until then, whether a session was live at load. */
  let told: boolean | undefined;
  /** The newest event not yet reported, and the timer that reports it. */
  const report = { event: undefined as HandEvent | undefined, timer: undefined as ReturnType<typeof setTimeout> | undefined };
  const sendReport = () => {
    clearTimeout(report.timer);
    report.timer = undefined;
    const ev = report.event;
    report.event = undefined;
    if (ev) browser.runtime.sendMessage({ type: "hands.input", ...ev } satisfies HandsReport).catch(() => undefined);
  };

  /** `known`: per document, the last event the worker has decided on. */
  const drain = (known: Record<string, number>): HandsDrain => ({ doc, events: kept.filter((e) => e.seq > (known[doc] ?? 0)) });
  g[HANDS_GLOBAL] = { drain };

  const onOverlay = (e: Event) => {
    const host = g[OVERLAY_HOST_GLOBAL];
    return host instanceof Element && e.composedPath().includes(host);
  };

  const note = (e: Event) => {
    if (!e.isTrusted || onOverlay(e)) return;
    if (e.type === "keydown" && MODIFIER_KEYS.has((e as KeyboardEvent).key)) return;
    const ev: HandEvent = { doc, seq: ++seq, kind: e.type as HandKind, at: performance.timeOrigin + e.timeStamp };
    kept.push(ev);
    if (kept.length > KEEP) kept.shift();
    if (!(told ?? liveHere())) return;
    report.event = ev;
    if (document.visibilityState === "hidden") sendReport();
    else report.timer ??= setTimeout(sendReport, REPORT_AFTER_MS);
  };
  for (const kind of HAND_KINDS) window.addEventListener(kind, note, { capture: true, passive: true });
  // A press that leaves the page (a link, a form sent by Enter) is told before the document goes.
  window.addEventListener("pagehide", sendReport, { capture: true });
  document.addEventListener("visibilitychange", () => document.visibilityState === "hidden" && sendReport(), { capture: true });

  browser.runtime.onMessage.addListener((msg: { type?: string }, sender) => {
    if (sender.id !== browser.runtime.id || sender.tab) return false;
    if (msg?.type === KEEPALIVE.start) told = true;
    else if (msg?.type === KEEPALIVE.stop) told = false;
    return false;
  });
});
