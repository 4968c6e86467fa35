/**
 * JavaScript dialogs (alert, confirm, prompt, beforeunload), per tab, from Page.javascriptDialogOpening/Closed of
 * the tab's own session and its out-of-process iframes. Nothing is auto-answered: while a dialog is open the page's
 * script is stopped and many CDP calls stall, so every tab-scoped call races against this state (dispatcher.ts):
 * one open at the start fails at once with dialog_pending; one that opens during the call aborts the call's signal
 * with dialog_pending (an action turns that into its effect `dialog`).
 *
 * Open dialogs are kept in chrome.storage.session too: a dialog holds every command into its page, the re-adoption of
 * the tab's attachment by a restarted worker included, and the browser tells a new listener nothing of a dialog that
 * opened before it. So the new worker reads them back: calls on the tab answer dialog_pending, and dialog
 * accept|dismiss answers it without waiting for the re-adoption; one the person closed while no worker listened is
 * forgotten once the document that opened it (the main frame's, or a cross-site frame's) answers a command
 * (dialogSettled).
 */
import { BskError } from "../../../protocol/errors.ts";
import { browser } from "wxt/browser";
import { attach, knownMainFrameId, sendAsIs, tapCdp } from "../cdp/debugger.ts";
import { childSessionOfFrame } from "../cdp/frames.ts";
import { heldBy } from "../cdp/runaway.ts";
import { emit } from "../ports/outbox.ts";
import type { CdpTarget } from "../cdp/refs/target.ts";
import { ownerOfTab } from "../session/sessions.ts";
import { SESSION } from "../session/settings.ts";
import { KeyedListeners } from "../shared/keyed-listeners.ts";

export type DialogType = "alert" | "confirm" | "prompt" | "beforeunload";

export interface OpenDialog {
  type: DialogType;
  message: string;
  default_prompt?: string;
  url: string;
  /** The frame that opened it (its Opening event says), when told: it may be a child frame's, of another process. */
  frame_id?: string;
  /** The CDP session that must answer it. */
  target: CdpTarget;
}

const MESSAGE_CAP = 4096;
/** A frame id is 32 hex digits; anything longer read back is not one. */
const FRAME_ID_CAP = 64;
const open = new Map<number, OpenDialog>();
const listeners = new KeyedListeners<number, [OpenDialog]>();
/** Tabs whose open dialog was read back from storage: no event of this worker's has told of it. */
const restored = new Set<number>();
const store = {
  /** Read back from storage.session; dialog events that come before are held until then, and handled in order. */
  loaded: null as Promise<void> | null,
  ready: false,
  held: [] as [CdpTarget, string, Record<string, any>][],
  writing: Promise.resolve(),
};

/** The open dialogs, as read back after a worker restart; resolves at once once read. */
export function dialogsReady(): Promise<void> {
  store.loaded ??= browser.storage.session
    .get(SESSION.dialogs)
    .then((got) => {
      const saved = (got[SESSION.dialogs] ?? {}) as Record<string, OpenDialog>;
      for (const [key, d] of Object.entries(saved)) {
        const tabId = Number(key);
        if (!Number.isInteger(tabId) || !d || typeof d.message !== "string" || d.target?.tabId !== tabId) continue;
        const sessionId = typeof d.target.sessionId === "string" ? d.target.sessionId : undefined;
        open.set(tabId, {
          type: asType(d.type),
          message: d.message.slice(0, MESSAGE_CAP),
          url: String(d.url ?? ""),
          ...(d.default_prompt !== undefined && { default_prompt: String(d.default_prompt) }),
          ...(typeof d.frame_id === "string" && d.frame_id.length <= FRAME_ID_CAP && { frame_id: d.frame_id }),
          target: sessionId ? { tabId, sessionId } : { tabId },
        });
        restored.add(tabId);
      }
    })
    .catch(() => undefined)
    .then(() => {
      for (const [source, method, p] of store.held) onDialogEvent(source, method, p);
      store.held = [];
      store.ready = true;
    });
  return store.loaded;
}

/** How long a call waits for a page with a dialog read back to show it has none (it answers a command). */
const VERIFY_MS = 500;
const verifying = new Map<number, Promise<void>>();
/** Tabs whose dialog read back did not let its page answer within VERIFY_MS: later calls do not wait again. */
const waited = new Set<number>();

/**
 * Where the document that opened `d` answers commands: the tab's own session for its main frame (or a record that
 * names no frame), an out-of-process iframe's session for that frame. Null when it cannot be told now: a child frame
 * not known as one of another process, or of the same process, whose dialog a main frame answering would not rule
 * out.
 */
async function documentOf(tabId: number, d: OpenDialog): Promise<CdpTarget | null> {
  if (d.target.sessionId) return null;
  if (d.frame_id === undefined || d.frame_id === (knownMainFrameId(tabId) ?? (await pageTargetId(tabId)))) return { tabId };
  // A restarted worker learns of the tab's frames of other processes as it takes the attachment over: not held by a
  // child frame's dialog, that re-adoption ends.
  let sessionId = childSessionOfFrame(tabId, d.frame_id);
  if (!sessionId)
    sessionId = await attach(tabId).then(
      () => childSessionOfFrame(tabId, d.frame_id!),
      () => undefined,
    );
  return sessionId ? { tabId, sessionId } : null;
}

/** A tab's page target id, which is its main frame's id, from the browser (no command into the page it holds). */
async function pageTargetId(tabId: number): Promise<string | undefined> {
  const targets = await browser.debugger.getTargets().catch(() => []);
  return targets.find((t) => t.tabId === tabId && t.type === "page")?.id;
}

/**
 * A document that answers a command shows no dialog: one read back for it was closed meanwhile. One whose document
 * cannot be told stays (dialog_pending: what is known); answering it clears it (tools/dialogs.ts).
 */
function verify(tabId: number): Promise<void> {
  let v = verifying.get(tabId);
  const d = open.get(tabId);
  if (!v && d) {
    v = documentOf(tabId, d)
      .then((at) => at && sendAsIs(at, "Runtime.evaluate", { expression: "0", returnByValue: true }))
      .then(
        (said) => {
          if (said && restored.has(tabId) && open.get(tabId) === d) forgetTab(tabId);
        },
        () => undefined,
      )
      .finally(() => verifying.delete(tabId));
    verifying.set(tabId, v);
  }
  return v ?? Promise.resolve();
}

/**
 * Before a call on the tab: the dialogs read back, and one of them for this tab checked first. Its Closed event can
 * have gone to no one (the person answered it while no worker listened): the document that opened it answering
 * within VERIFY_MS says it shows none. One that does not answer is taken as still open (dialog_pending: what is
 * known), and is forgotten once it does answer.
 */
export async function dialogSettled(tabId: number): Promise<void> {
  await dialogsReady();
  if (!restored.has(tabId) || waited.has(tabId)) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), VERIFY_MS)));
  if ((await Promise.race([verify(tabId), late]).finally(() => clearTimeout(timer))) === "late") waited.add(tabId);
}

function persist(): void {
  const all = Object.fromEntries(open);
  store.writing = store.writing.then(() => browser.storage.session.set({ [SESSION.dialogs]: all })).catch(() => undefined);
}

function forgetTab(tabId: number): void {
  restored.delete(tabId);
  waited.delete(tabId);
  if (open.delete(tabId)) persist();
}

function asType(t: unknown): DialogType {
  return t === "confirm" || t === "prompt" || t === "beforeunload" ? t : "alert";
}

function onDialogEvent(source: CdpTarget, method: string, p: Record<string, any>): void {
  if (method === "Page.javascriptDialogOpening") {
    const d: OpenDialog = {
      type: asType(p.type),
      message: String(p.message ?? "").slice(0, MESSAGE_CAP),
      url: String(p.url ?? ""),
      target: source,
    };
    if (d.type === "prompt") d.default_prompt = String(p.defaultPrompt ?? "");
    if (typeof p.frameId === "string" && p.frameId.length <= FRAME_ID_CAP) d.frame_id = p.frameId;
    open.set(source.tabId, d);
    restored.delete(source.tabId);
    waited.delete(source.tabId);
    persist();
    const owner = ownerOfTab(source.tabId);
    if (owner)
      emit("dialog.opened", {
        session_id: owner.session.session_id,
        tab_id: source.tabId,
        type: d.type,
        message: d.message,
        url: d.url,
      });
    listeners.emit(source.tabId, d);
  } else if (method === "Page.javascriptDialogClosed") {
    const d = open.get(source.tabId);
    if (d && (d.target.sessionId ?? "") === (source.sessionId ?? "")) forgetTab(source.tabId);
    const owner = ownerOfTab(source.tabId);
    if (owner) emit("dialog.closed", { session_id: owner.session.session_id, tab_id: source.tabId, accepted: p.result === true });
  }
}

export function installDialogTracking(): void {
  // A page showing a dialog is held by it, not by a loop: runaway.ts never pauses or crashes it.
  heldBy((tabId) => open.has(tabId));
  tapCdp({
    onEvent(source, method, p) {
      if (method !== "Page.javascriptDialogOpening" && method !== "Page.javascriptDialogClosed") return;
      // Not before the dialogs are read back: a Closed event must find the dialog it closes.
      if (store.ready) return onDialogEvent(source, method, p);
      store.held.push([source, method, p]);
      void dialogsReady();
    },
    onDetach(tabId) {
      forgetTab(tabId);
    },
  });
  void dialogsReady();
}

export function openDialog(tabId: number): OpenDialog | undefined {
  return open.get(tabId);
}

/** Forget a dialog we just answered (its Closed event follows). */
export function answered(tabId: number, d: OpenDialog): void {
  if (open.get(tabId) === d) forgetTab(tabId);
}

/** Calls `fn` when a dialog opens on the tab, until the returned function is called. */
export function onDialogOpen(tabId: number, fn: (d: OpenDialog) => void): () => void {
  return listeners.add(tabId, fn);
}

export function dialogInfo(d: OpenDialog): { type: DialogType; message: string; default_prompt?: string; url: string } {
  return { type: d.type, message: d.message, ...(d.default_prompt !== undefined && { default_prompt: d.default_prompt }), url: d.url };
}

export function dialogPending(tabId: number, d: OpenDialog): BskError {
  return new BskError("dialog_pending", `a ${d.type} dialog is open in tab ${tabId}: ${JSON.stringify(d.message)}`, {
    hint:
      d.type === "prompt"
        ? "Answer it first: bsk dialog accept --text '…' or bsk dialog dismiss."
        : "Answer it first: bsk dialog accept or bsk dialog dismiss.",
    data: { type: d.type, message: d.message, tab_id: tabId },
  });
}

export function isDialogPending(err: unknown): err is BskError {
  return err instanceof BskError && err.code === "dialog_pending";
}

/**
 * The call's signal, also aborted with dialog_pending when a dialog opens on the tab. Throws dialog_pending at once
 * when one is already open. `dispose` stops listening.
 */
export function dialogGuard(tabId: number, signal: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const d = open.get(tabId);
  if (d) throw dialogPending(tabId, d);
  const ac = new AbortController();
  const dispose = onDialogOpen(tabId, (opened) => ac.abort(dialogPending(tabId, opened)));
  return { signal: AbortSignal.any([signal, ac.signal]), dispose };
}
