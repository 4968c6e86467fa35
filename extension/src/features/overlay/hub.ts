/**
 * The worker's side of the overlays: what each tab shows (OverlayView), pushed when it changes (a tab joins or
 * leaves a session, Take over / Resume, a call starts or ends on it, "Show control hints" flips, a help request
 * starts or ends, a call waits for the person's Allow) and answered when a page loads (overlay.hello). Messages from a page act only on the session
 * that owns the sender's tab. Screenshots hide the overlay first (onCapture).
 */
import { browser, type Browser } from "wxt/browser";
import {
  controlReady,
  installDebuggingCancelStop,
  isTakenOver,
  onBusyChange,
  onControlChange,
  pruneControl,
  resume,
  takeOver,
} from "../control.ts";
import { answerFromPage, approvalView, onApprovalChange } from "../approval/registry.ts";
import { fromPage, hasHelp, helpView, onHelpChange, tabGone } from "../help/registry.ts";
import { freshNote, installNoteFrame } from "../help/note-frame.ts";
import { installApprovalText } from "../approval/text-frame.ts";
import { finishFromPage } from "../recording/recorder.ts";
import { onRecordingChange, recordingOfTab, recordingsReady } from "../../session/recordings.ts";
import { onCapture } from "../../page/screenshot.ts";
import { allSessions, endByPerson, isClosing, ownerOfTab, sessionsReady } from "../../session/sessions.ts";
import { LOCAL, readSwitches, SESSION } from "../../session/settings.ts";
import { OVERLAY_LIFE_PORT, type OverlayPush, type OverlayRequest, type OverlayView } from "../../shared/messages/overlay.ts";
import { Glow } from "./glow.ts";
import { lifePortFrom } from "./life-port.ts";

/** A page that does not answer (busy, frozen) does not hold a screenshot up longer than this. */
const CAPTURE_HIDE_CAP_MS = 500;

/** The hub's state: the hints switch, what each tab was last told, the tabs whose page hides the pill. */
interface HubState {
  hints: boolean;
  hintsLoaded: Promise<void> | null;
  /** Tab → session, as last pushed: a tab that left a session is told to hide. */
  shown: Map<number, string>;
  /** Tabs whose overlay says the page keeps the pill out of sight (mirrored per session in storage.session). */
  pillHidden: Set<number>;
}
const hubState: HubState = {
  hints: true,
  hintsLoaded: null,
  shown: new Map<number, string>(),
  pillHidden: new Set<number>(),
};

/** Busy tabs glow only once their call has run a moment (glow.ts); with the hints off nothing is pushed for it. */
const glow = new Glow((tabId) => {
  if (hubState.hints) void push(tabId);
});

function hintsReady(): Promise<void> {
  hubState.hintsLoaded ??= readSwitches().then((s) => void (hubState.hints = s.show_hints));
  return hubState.hintsLoaded;
}

async function ready(): Promise<void> {
  await Promise.all([sessionsReady(), controlReady(), hintsReady(), recordingsReady()]);
}

export function viewFor(tabId: number): OverlayView | null {
  const owned = ownerOfTab(tabId);
  if (!owned || isClosing(owned.session.session_id)) return null;
  const s = owned.session;
  return {
    session_id: s.session_id,
    ...(s.name && { name: s.name }),
    ...(s.remote_host !== undefined && { remote_host: s.remote_host }),
    state: isTakenOver(s.session_id) ? "taken_over" : "live",
    busy: glow.isLit(tabId),
    hints: hubState.hints,
    help: helpView(tabId),
    record: recordView(tabId),
    approval: approvalView(tabId),
  };
}

function recordView(tabId: number): OverlayView["record"] {
  const rec = recordingOfTab(tabId);
  return rec ? { steps: rec.steps.length, ...(rec.purpose !== undefined && { purpose: rec.purpose }) } : null;
}

function shows(view: OverlayView | null): boolean {
  return view !== null && (view.hints || view.help !== null || view.record !== null || view.approval !== null);
}

function tell(tabId: number, msg: OverlayPush): Promise<unknown> {
  return browser.tabs.sendMessage(tabId, msg, { frameId: 0 }).catch(() => undefined);
}

/** Resolves once the page has drawn the view (its listener runs before the message is answered). */
function push(tabId: number): Promise<void> {
  const view = viewFor(tabId);
  return browser.tabs
    .sendMessage(tabId, { type: "overlay.view", view } satisfies OverlayPush, { frameId: 0 })
    .then(() => undefined)
    .catch(() => {
      if (view) void inject(tabId);
    });
}

/**
 * A tab of a session without our content script (it was open before the extension was installed or reloaded) gets it
 * now, then its view. Pages that scripts cannot run in are left alone.
 */
async function inject(tabId: number): Promise<void> {
  const tab = await browser.tabs.get(tabId).catch(() => undefined);
  if (!tab || !/^(https?|file):/.test(tab.url ?? "") || tab.status !== "complete") return;
  const done = await browser.scripting.executeScript({ target: { tabId, frameIds: [0] }, files: ["/overlay.js"] }).catch(() => undefined);
  if (done) await tell(tabId, { type: "overlay.view", view: viewFor(tabId) });
}

/** The popup's word on it: the sessions one of whose pages hides the pill. */
function setPillHidden(tabId: number, hidden: boolean): void {
  const had = hubState.pillHidden.has(tabId);
  if (hidden) hubState.pillHidden.add(tabId);
  else hubState.pillHidden.delete(tabId);
  if (had !== hidden) writePillHidden();
}

function writePillHidden(): void {
  const ids = new Set<string>();
  for (const tabId of hubState.pillHidden) {
    const owner = ownerOfTab(tabId);
    if (owner) ids.add(owner.session.session_id);
  }
  void browser.storage.session.set({ [SESSION.pillHidden]: [...ids] }).catch(() => undefined);
}

function pushSession(sessionId: string): void {
  for (const s of allSessions()) if (s.session_id === sessionId) for (const id of Object.keys(s.tabs)) push(Number(id));
}

function syncSessions(): void {
  const now = new Map<number, string>();
  for (const s of allSessions()) for (const id of Object.keys(s.tabs)) now.set(Number(id), s.session_id);
  for (const [tabId, sessionId] of now) if (hubState.shown.get(tabId) !== sessionId) push(tabId);
  for (const tabId of hubState.shown.keys()) if (!now.has(tabId)) push(tabId);
  hubState.shown = now;
  const hiding = hubState.pillHidden.size;
  for (const tabId of hubState.pillHidden) if (!now.has(tabId)) hubState.pillHidden.delete(tabId);
  if (hubState.pillHidden.size !== hiding) writePillHidden();
  pruneControl();
}

async function onPageMessage(msg: OverlayRequest, sender: Browser.runtime.MessageSender): Promise<OverlayView | null> {
  await ready();
  const tabId = sender.tab!.id!;
  const owned = ownerOfTab(tabId);
  if (owned) {
    const sessionId = owned.session.session_id;
    switch (msg.type) {
      case "overlay.takeover":
        await takeOver(sessionId, tabId);
        break;
      case "overlay.resume":
        await resume(sessionId, tabId);
        break;
      case "overlay.stop":
        await endByPerson(sessionId, "stopped_by_person");
        break;
      case "overlay.hello":
        break;
      case "overlay.hidden":
        setPillHidden(tabId, msg.hidden === true);
        break;
      case "record.panel_finish":
        finishFromPage(tabId);
        break;
      case "approval.answer":
        answerFromPage(sender, msg.approval_id, msg.allow === true);
        break;
      case "help.done":
      case "help.cancel":
      case "help.completed":
        // The request ends with the note field's text as it is now (its frame's last edit may still be on its way).
        await freshNote(tabId);
        fromPage(tabId, msg);
        break;
      default:
        fromPage(tabId, msg);
    }
  }
  return viewFor(tabId);
}

const PAGE_TYPES = new Set([
  "overlay.hello",
  "record.panel_finish",
  "overlay.takeover",
  "overlay.resume",
  "overlay.stop",
  "overlay.hidden",
  "help.done",
  "help.cancel",
  "help.completed",
  "help.invalid",
  "approval.answer",
]);

export function installOverlay(): void {
  installDebuggingCancelStop();
  installNoteFrame();
  installApprovalText();
  browser.runtime.onConnect.addListener((port) => {
    // Held open and never read; what else connects under its name is cut off.
    if (port.name === OVERLAY_LIFE_PORT && !lifePortFrom(port.sender, browser.runtime.id)) port.disconnect();
  });
  browser.runtime.onMessage.addListener((msg: OverlayRequest, sender, sendResponse) => {
    // Only our content script in a top-level page speaks these; the session comes from its tab, never from the page.
    if (sender.id !== browser.runtime.id || sender.tab?.id === undefined || sender.frameId !== 0 || !PAGE_TYPES.has(msg?.type))
      return false;
    onPageMessage(msg, sender).then(sendResponse, (err: unknown) => {
      console.error("bsk: overlay message failed", err);
      sendResponse(null);
    });
    return true;
  });
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "session" && SESSION.sessions in changes) syncSessions();
    if (area === "local" && LOCAL.showHints in changes) {
      hubState.hintsLoaded = null;
      void hintsReady().then(() => {
        for (const tabId of hubState.shown.keys()) push(tabId);
      });
    }
  });
  browser.webNavigation.onHistoryStateUpdated.addListener((d) => {
    if (d.frameId === 0 && hasHelp(d.tabId)) void tell(d.tabId, { type: "help.recheck" });
  });
  browser.tabs.onRemoved.addListener((tabId) => {
    tabGone(tabId);
    setPillHidden(tabId, false);
  });
  // A new document has a new overlay, which reports again if this page hides it too.
  browser.webNavigation.onCommitted.addListener((d) => {
    if (d.frameId === 0) setPillHidden(d.tabId, false);
  });
  onControlChange(pushSession);
  onBusyChange((tabId, busy) => glow.busy(tabId, busy));
  onHelpChange(push);
  onApprovalChange(push);
  onRecordingChange((rec) => push(rec.tab_id));
  onCapture({
    async hide(tabId) {
      if (!shows(viewFor(tabId))) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cap = new Promise((resolve) => (timer = setTimeout(resolve, CAPTURE_HIDE_CAP_MS)));
      await Promise.race([tell(tabId, { type: "overlay.capture", hidden: true }), cap]);
      clearTimeout(timer);
    },
    async show(tabId) {
      if (shows(viewFor(tabId))) await tell(tabId, { type: "overlay.capture", hidden: false });
    },
  });
  void ready().then(syncSessions);
}
