/**
 * Who is in control of each session, on the browser side, and which tabs a session is acting on right now.
 *
 * Take over (overlay or popup): the session's refs become stale (a new ref epoch), its calls running here are cut
 * off at once with user_aborted (reason taken_over), later actions and reads of its pages are refused here too
 * (protocol/person-control.ts; the daemon's gate refuses them first, this covers a call already on its way), and the
 * daemon is told
 * (session.takeover), which cancels what it has in flight. Resume reverses the gate and makes refs stale again: the
 * person may have changed anything, so the agent re-observes. The state survives a worker restart
 * (storage.session).
 */
import { browser } from "wxt/browser";
import { METHODS, type ExtensionMethodName } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";
import { refusedWhileTakenOver } from "../../../protocol/person-control.ts";
import { emit } from "../ports/outbox.ts";
import { onDebuggingCancelled } from "../cdp/debugger.ts";
import { invalidateRefs } from "../cdp/refs/table.ts";
import { allSessions, endByPerson, getSession, setPersonHolds } from "../session/sessions.ts";
import { SESSION } from "../session/settings.ts";
import { recordingsReady } from "../session/recordings.ts";

const KEY = SESSION.control;

/** Take over: which sessions the person holds, who listens, which tabs are busy, the calls running per session. */
interface ControlState {
  /** Session ids the person has taken over. */
  takenOver: Set<string>;
  loaded: Promise<void> | null;
  listeners: Listener[];
  /** Tab id → calls running on it. */
  busy: Map<number, number>;
  busyListeners: BusyListener[];
  /** Session id → controllers of its calls running here. */
  running: Map<string, Set<AbortController>>;
  /** Tab id → controllers of the calls running on it (a tab taken back from a session cuts them off). */
  onTab: Map<number, Set<AbortController>>;
}
const controlState: ControlState = {
  takenOver: new Set<string>(),
  loaded: null,
  listeners: [],
  busy: new Map<number, number>(),
  busyListeners: [],
  running: new Map<string, Set<AbortController>>(),
  onTab: new Map<number, Set<AbortController>>(),
};

type Listener = (sessionId: string) => void;
type BusyListener = (tabId: number, busy: boolean) => void;

export function controlReady(): Promise<void> {
  controlState.loaded ??= browser.storage.session
    .get(KEY)
    .then((got) => {
      const ids = Array.isArray(got[KEY]) ? (got[KEY] as string[]) : [];
      controlState.takenOver = new Set([...ids, ...controlState.takenOver]);
    })
    .catch((err: unknown) => console.error("bsk: could not read the control state", err));
  return controlState.loaded;
}

function save(): void {
  browser.storage.session
    .set({ [KEY]: [...controlState.takenOver] })
    .catch((err: unknown) => console.error("bsk: could not save the control state", err));
}

export function isTakenOver(sessionId: string): boolean {
  return controlState.takenOver.has(sessionId);
}

// A session the person holds keeps its tabs open for them when it ends (session/sessions.ts closeSession).
setPersonHolds(async (sessionId) => {
  await controlReady();
  return isTakenOver(sessionId);
});

export function onControlChange(l: Listener): void {
  controlState.listeners.push(l);
}

export function onBusyChange(l: BusyListener): void {
  controlState.busyListeners.push(l);
}

export function isBusy(tabId: number): boolean {
  return (controlState.busy.get(tabId) ?? 0) > 0;
}

function changed(sessionId: string): void {
  for (const l of controlState.listeners) l(sessionId);
}

export function takenOverError(sessionId: string): BskError {
  return new BskError("user_aborted", `the person took over session ${sessionId}`, {
    data: { reason: "taken_over", session_id: sessionId },
  });
}

/** `cause` "input": the person's own input in the tab took it (hands/), not a button. */
export async function takeOver(sessionId: string, tabId?: number, cause?: "input"): Promise<boolean> {
  await controlReady();
  if (!getSession(sessionId) || controlState.takenOver.has(sessionId)) return false;
  // A recording's tab is the person's already; taking over would only cut off the wait for its trace. That holds
  // until the trace is collected: an input of the person's decided late (their keys just before closing the tab)
  // arrives after the recording ended, and must not turn its trace into taken_over.
  if ((await recordingsReady()).has(sessionId)) return false;
  controlState.takenOver.add(sessionId);
  save();
  for (const ac of controlState.running.get(sessionId) ?? []) ac.abort(takenOverError(sessionId));
  await invalidateRefs(sessionId);
  emit("session.takeover", { session_id: sessionId, ...(tabId !== undefined && { tab_id: tabId }), ...(cause && { cause }) });
  changed(sessionId);
  return true;
}

export async function resume(sessionId: string, tabId?: number): Promise<boolean> {
  await controlReady();
  if (!controlState.takenOver.delete(sessionId)) return false;
  save();
  await invalidateRefs(sessionId);
  emit("session.resume", { session_id: sessionId, ...(tabId !== undefined && { tab_id: tabId }) });
  changed(sessionId);
  return true;
}

/** Cancelling the browser's "started debugging this browser" bar is Stop, for every session (Chrome detached them all). */
export function installDebuggingCancelStop(): void {
  onDebuggingCancelled(() => {
    for (const s of allSessions()) void endByPerson(s.session_id, "stopped_by_person", [], "debugging_cancelled");
  });
}

/** Forgets sessions that ended (called when the session list changes). */
export function pruneControl(): void {
  const live = new Set(allSessions().map((s) => s.session_id));
  let dropped = false;
  for (const id of controlState.takenOver) if (!live.has(id)) dropped = controlState.takenOver.delete(id) || dropped;
  if (dropped) save();
}

/** Methods that show no glow: the person is the one acting, or nothing happens in the page. */
const QUIET = new Set<string>(["request_help", "console", "network", "dialog.status"]);

/**
 * A call of the extension is starting: refuses page actions of a taken-over session, links the call to its session
 * (a takeover cuts it off) and marks its tab busy. `end()` when it is done.
 */
export async function beginCall(
  method: ExtensionMethodName,
  p: { session_id?: string; tab_id?: number },
  signal: AbortSignal,
): Promise<{ signal: AbortSignal; end: () => void }> {
  const sessionId = p.session_id;
  if (!sessionId || METHODS[method].scope === "none" || method === "session.open" || method === "session.close") {
    return { signal, end: () => {} };
  }
  await controlReady();
  if (controlState.takenOver.has(sessionId) && refusedWhileTakenOver(method)) throw takenOverError(sessionId);

  const ac = new AbortController();
  const onAbort = () => ac.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  let set = controlState.running.get(sessionId);
  if (!set) controlState.running.set(sessionId, (set = new Set()));
  set.add(ac);

  const onTabId = METHODS[method].scope === "tab" ? (p.tab_id ?? getSession(sessionId)?.current_tab_id ?? undefined) : undefined;
  const tabId = QUIET.has(method) ? undefined : onTabId;
  if (tabId !== undefined) setBusy(tabId, +1);
  let tabSet: Set<AbortController> | undefined;
  if (onTabId !== undefined) {
    tabSet = controlState.onTab.get(onTabId);
    if (!tabSet) controlState.onTab.set(onTabId, (tabSet = new Set()));
    tabSet.add(ac);
  }
  let ended = false;
  return {
    signal: ac.signal,
    end: () => {
      if (ended) return;
      ended = true;
      signal.removeEventListener("abort", onAbort);
      set.delete(ac);
      if (set.size === 0 && controlState.running.get(sessionId) === set) controlState.running.delete(sessionId);
      if (tabId !== undefined) setBusy(tabId, -1);
      if (tabSet) {
        tabSet.delete(ac);
        if (tabSet.size === 0 && controlState.onTab.get(onTabId!) === tabSet) controlState.onTab.delete(onTabId!);
      }
    },
  };
}

/** The person took a tab back (dragged it out of the session's group): its calls running here end with `err`. */
export function abortTabCalls(tabId: number, err: BskError): void {
  for (const ac of controlState.onTab.get(tabId) ?? []) ac.abort(err);
}

function setBusy(tabId: number, delta: number): void {
  const before = controlState.busy.get(tabId) ?? 0;
  const after = Math.max(0, before + delta);
  if (after === 0) controlState.busy.delete(tabId);
  else controlState.busy.set(tabId, after);
  if (before > 0 !== after > 0) for (const l of controlState.busyListeners) l(tabId, after > 0);
}
