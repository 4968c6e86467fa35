/**
 * chrome.debugger, kept attached: a tab is attached on first use and stays attached (attach + detach around
 * every call costs 3×). Events are fanned out per tab to subscribers.
 */
import { browser } from "wxt/browser";
import { BskError } from "../../../protocol/errors.ts";
import { errorMessage, raceAbort } from "../shared/abort.ts";
import type { CdpTarget } from "./refs/target.ts";
import { enableDebugger, navigationWaitsOn, runawayChecked, stopRunawayScript, watchAhead } from "./runaway.ts";

const PROTOCOL = "1.3";

export type CdpListener = (method: string, params: Record<string, any>) => void;
export type DetachListener = (reason: string) => void;

interface Subscriber {
  onEvent: CdpListener;
  onDetach?: DetachListener;
}

/** Tab id → attachment in progress or done; absent means not attached. */
const attachments = new Map<number, Promise<void>>();
const mainFrames = new Map<number, string>();
const subscribers = new Map<number, Set<Subscriber>>();

/**
 * Runs on every attachment (also the re-attachment after a worker restart, `readopted`), e.g. to enable CDP domains.
 */
export type AttachHook = (tabId: number, send: (method: string, params?: object) => Promise<any>, readopted: boolean) => Promise<unknown>;
const attachHooks: AttachHook[] = [];

/**
 * Families whose events must flow from the first moment (console, network) register here at start-up. Hooks run
 * together with Page.enable, so the first command of a tab waits for them; a hook's failure is logged, never fatal.
 */
export function onAttach(hook: AttachHook): void {
  attachHooks.push(hook);
}

/** Every attachment turns the Debugger domain on, so a runaway script can be paused later (runaway.ts). */
export function installRunawayStop(): void {
  onAttach((_tabId, send) => enableDebugger(send));
  navigationWaitsOn((tabId) => uncommitted.has(tabId));
}

/**
 * Tabs bsk sent a navigation that has not committed yet (no main-frame Page.frameNavigated since, nor an answer saying
 * it failed or became a download): a busy page such a navigation waits on takes no pause (runaway.ts).
 */
const uncommitted = new Set<number>();
const NAVIGATIONS = new Set(["Page.navigate", "Page.reload", "Page.navigateToHistoryEntry"]);

function navigationSent(tabId: number, sent: Promise<unknown>): void {
  uncommitted.add(tabId);
  const failed = () => uncommitted.delete(tabId);
  void sent.then((answer) => {
    const { errorText, isDownload } = (answer ?? {}) as { errorText?: string; isDownload?: boolean };
    if (errorText || isDownload) failed();
  }, failed);
}

/** Sees every event of every attached tab, child sessions (out-of-process iframes) included, and every detach. */
export interface CdpTap {
  onEvent(source: CdpTarget, method: string, params: Record<string, any>): void;
  onDetach?(tabId: number): void;
}
const taps: CdpTap[] = [];

/** Registered once at start-up (frames.ts); per-tab subscribers below hear only the tab's own session. */
export function tapCdp(tap: CdpTap): void {
  taps.push(tap);
}

export function installCdpListeners(): void {
  browser.debugger.onEvent.addListener((source, method, params) => {
    if (source.tabId === undefined) return;
    const target: CdpTarget = source.sessionId ? { tabId: source.tabId, sessionId: source.sessionId } : { tabId: source.tabId };
    for (const t of taps) t.onEvent(target, method, (params ?? {}) as Record<string, any>);
    if (source.sessionId) return;
    if (method === "Page.frameNavigated" && !(params as { frame?: { parentId?: string } } | undefined)?.frame?.parentId) {
      uncommitted.delete(source.tabId);
    }
    const subs = subscribers.get(source.tabId);
    if (!subs) return;
    for (const s of subs) s.onEvent(method, (params ?? {}) as Record<string, any>);
  });
  browser.debugger.onDetach.addListener((source, reason) => {
    if (source.tabId === undefined) return;
    forget(source.tabId);
    for (const t of taps) t.onDetach?.(source.tabId);
    // canceled_by_user: the person dismissed the "is debugging this browser" bar (control.ts makes it Stop).
    if (reason === "canceled_by_user") {
      console.warn(`bsk: debugging of tab ${source.tabId} cancelled by the person`);
      for (const l of cancelledListeners) l(source.tabId);
    }
    for (const s of subscribers.get(source.tabId) ?? []) s.onDetach?.(reason);
  });
}

const cancelledListeners: ((tabId: number) => void)[] = [];

/** The person cancelled debugging from the browser's own bar (Chrome detaches every tab of the extension then). */
export function onDebuggingCancelled(listener: (tabId: number) => void): void {
  cancelledListeners.push(listener);
}

function forget(tabId: number): void {
  attachments.delete(tabId);
  uncommitted.delete(tabId);
  mainFrames.delete(tabId);
}

/** Whether the tab is attached or being attached: a command sent to it now starts no attachment of its own. */
export function attachedOrAttaching(tabId: number): boolean {
  return attachments.has(tabId);
}

/** Attaches once per tab; concurrent callers share the attempt, a failure leaves nothing behind. */
export function attach(tabId: number): Promise<void> {
  let pending = attachments.get(tabId);
  if (!pending) {
    pending = doAttach(tabId);
    attachments.set(tabId, pending);
    pending.catch(() => {
      if (attachments.get(tabId) === pending) forget(tabId);
    });
  }
  return pending;
}

async function doAttach(tabId: number): Promise<void> {
  let attachError: string | null = null;
  try {
    await browser.debugger.attach({ tabId }, PROTOCOL);
  } catch (err) {
    // After a service-worker restart our own attachment survives and attach says "already attached";
    // whether it is ours shows in the next command.
    attachError = errorMessage(err);
  }
  try {
    // A surviving attachment (worker restart): its Runtime and Log are still on and would replay nothing. Off first,
    // so the hooks' enabling replays what the page logged, also while no worker listened (diagnostics/capture.ts);
    // it drops the attachment's bindings too, which the hooks add again.
    if (attachError !== null) await Promise.all([rawSend(tabId, "Runtime.disable"), rawSend(tabId, "Log.disable")]).catch(() => undefined);
    await Promise.all([
      rawSend(tabId, "Page.enable"),
      rawSend(tabId, "Page.setLifecycleEventsEnabled", { enabled: true }),
      ...attachHooks.map((hook) =>
        hook(tabId, (method, params) => rawSend(tabId, method, params), attachError !== null).catch((err: unknown) =>
          console.warn(`bsk: attach hook failed on tab ${tabId}: ${errorMessage(err)}`),
        ),
      ),
    ]);
  } catch (err) {
    if (attachError === null) await browser.debugger.detach({ tabId }).catch(() => undefined);
    const why = attachError ?? errorMessage(err);
    if (EXTENSION_FRAME.test(why)) throw extensionFrameError(tabId, `cannot debug tab ${tabId}: ${why}`);
    throw new BskError("cdp_failed", `cannot debug tab ${tabId}: ${why}`, {
      hint: /already attached/i.test(why)
        ? "Another debugger (DevTools, another extension) holds this tab; close it and retry."
        : "The browser refused to debug this tab; check it still exists (bsk tab list) and retry.",
      data: { reason: "attach_failed", tab_id: tabId },
    });
  }
}

async function rawSend(tabId: number, method: string, params?: object, sessionId?: string): Promise<any> {
  return browser.debugger.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, method, (params ?? {}) as Record<string, unknown>);
}

const sendToTarget = (t: CdpTarget, method: string, params?: object) => rawSend(t.tabId, method, params, t.sessionId);

/**
 * A call on the tab ran out of time (`cause`: its abort reason), whatever it waited for (a command, or events such as a
 * navigation's load): the page is checked for a script keeping it busy, which a later call would queue behind.
 */
export function checkPageAfter(tabId: number, cause: unknown): void {
  if (attachments.has(tabId)) void stopRunawayScript({ tabId }, sendToTarget, cause);
}

/**
 * A call on the tab with a deadline: from shortly before it, and while the call runs (the returned function ends
 * that), the page is asked whether it answers, so a check at the deadline need not wait to know it is busy.
 */
export function watchPageAhead(tabId: number, deadline: number): () => void {
  return watchAhead({ tabId }, sendToTarget, deadline, () => attachments.has(tabId));
}

/** A call that ends while its command is still unanswered may leave a page script running: runaway.ts checks. */
function stopScriptIfLeftRunning(target: CdpTarget, sent: Promise<unknown>, signal: AbortSignal): void {
  let answered = false;
  const onAbort = () => {
    if (!answered) void stopRunawayScript(target, sendToTarget, signal.reason);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  const settled = () => {
    answered = true;
    signal.removeEventListener("abort", onAbort);
  };
  void sent.then(settled, settled);
}

/** Sends one CDP command, attaching first if needed. Failures become cdp_failed (data.cdp_message is CDP's text). */
export async function send<T = any>(tabId: number, method: string, params?: object, signal?: AbortSignal): Promise<T> {
  return sendTo<T>({ tabId }, method, params, signal);
}

/**
 * Sees every command this extension sends through send()/sendTo() as it goes out; the returned function (if any)
 * runs once the browser has answered it (hands/agent-input.ts tells the agent's own input from the person's).
 */
export type CommandWatch = (target: CdpTarget, method: string, params: Record<string, any>) => (() => void) | undefined;
const commandWatches: CommandWatch[] = [];

export function watchCommands(watch: CommandWatch): void {
  commandWatches.push(watch);
}

function sendWatched(target: CdpTarget, method: string, params?: object): Promise<unknown> {
  const done = commandWatches.map((w) => w(target, method, (params ?? {}) as Record<string, any>));
  const sent = rawSend(target.tabId, method, params, target.sessionId);
  if (done.some(Boolean)) {
    const settle = () => {
      for (const d of done) d?.();
    };
    sent.then(settle, settle);
  }
  return sent;
}

/** send() to a tab's own session or to one of its child sessions (an out-of-process iframe). */
export async function sendTo<T = any>(target: CdpTarget, method: string, params?: object, signal?: AbortSignal): Promise<T> {
  await raceAbort(attach(target.tabId), signal);
  // Behind a check for a script that kept the page busy (an earlier call ended on it), not alongside it.
  const checking = runawayChecked(target.tabId);
  if (checking) await raceAbort(checking, signal);
  const sent = sendWatched(target, method, params);
  if (!target.sessionId && NAVIGATIONS.has(method)) navigationSent(target.tabId, sent);
  if (signal) stopScriptIfLeftRunning(target, sent, signal);
  try {
    return (await raceAbort(sent, signal)) as T;
  } catch (err) {
    throw commandFailed(target, method, err);
  }
}

function commandFailed(target: CdpTarget, method: string, err: unknown): BskError {
  if (err instanceof BskError) return err;
  const message = cdpMessage(err);
  if (EXTENSION_FRAME.test(message)) return extensionFrameError(target.tabId, `${method} failed: ${message}`);
  const data: Record<string, unknown> = { method, cdp_message: message, tab_id: target.tabId };
  if (target.sessionId) data.cdp_session_id = target.sessionId;
  return new BskError("cdp_failed", `${method} failed: ${message}`, { data });
}

/**
 * sendTo() on the attachment as it is, without waiting for this worker's own attaching of the tab: a JavaScript dialog
 * holds every command into its page, those of the attachment's re-adoption after a worker restart too, and only the
 * dialog's answer (Page.handleJavaScriptDialog, answered by the browser itself) frees them.
 */
export async function sendAsIs<T = any>(target: CdpTarget, method: string, params?: object, signal?: AbortSignal): Promise<T> {
  try {
    return (await raceAbort(sendWatched(target, method, params), signal)) as T;
  } catch (err) {
    throw commandFailed(target, method, err);
  }
}

/**
 * The browser refuses every chrome.debugger call on a tab (attach, command) while any frame in it shows another
 * extension's page, and ends an attachment (`target_closed`) the moment such a frame starts loading: a password
 * manager's menu, or bsk's own note field while the person helps (its per-session dynamic URL counts as another
 * extension's). Nothing was sent to the page then; the tab is bsk's again once the frame is gone.
 */
const EXTENSION_FRAME = /chrome-extension:\/\/ URL of different extension/i;

function extensionFrameError(tabId: number, message: string): BskError {
  return new BskError("cdp_failed", message, {
    hint:
      "A frame of another extension (e.g. a password manager's menu) or bsk's own help panel shows in this tab, and the browser lets no " +
      "extension act on a tab while it does; nothing was done. Once it is gone (the person closes it, or finishes helping), retry.",
    data: { reason: "extension_frame", tab_id: tabId },
  });
}

/** chrome.debugger rejects with the CDP error as JSON text ({"code":-32000,"message":"..."}). */
function cdpMessage(err: unknown): string {
  const text = errorMessage(err);
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    /* plain text */
  }
  return text;
}

/** The tab's main frame id if already known (no round trip). */
export function knownMainFrameId(tabId: number): string | undefined {
  return mainFrames.get(tabId);
}

/** The main frame's id: stable for the tab's lifetime, so asked once per attachment. */
export async function mainFrameId(tabId: number, signal?: AbortSignal): Promise<string> {
  const known = mainFrames.get(tabId);
  if (known) return known;
  const { frameTree } = await send<{ frameTree: { frame: { id: string } } }>(tabId, "Page.getFrameTree", {}, signal);
  mainFrames.set(tabId, frameTree.frame.id);
  return frameTree.frame.id;
}

/** Listen to one tab's CDP events (and its detach) until the returned function is called. */
export function subscribe(tabId: number, onEvent: CdpListener, onDetach?: DetachListener): () => void {
  const sub: Subscriber = { onEvent, onDetach };
  let subs = subscribers.get(tabId);
  if (!subs) subscribers.set(tabId, (subs = new Set()));
  subs.add(sub);
  return () => {
    subs.delete(sub);
    if (subs.size === 0 && subscribers.get(tabId) === subs) subscribers.delete(tabId);
  };
}

/**
 * Detaches if attached (also an attachment made before a service-worker restart). Chrome fires no onDetach for our own
 * detach, so the taps hear it here: what they keep per tab (console and network buffers, frames, dialogs) would
 * otherwise stay for every tab returned to the person, for the worker's life.
 */
export async function detach(tabId: number): Promise<void> {
  forget(tabId);
  for (const t of taps) t.onDetach?.(tabId);
  await browser.debugger.detach({ tabId }).catch(() => undefined);
}
