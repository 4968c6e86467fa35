/**
 * JavaScript dialogs (alert, confirm, prompt, beforeunload), per tab, from Page.javascriptDialogOpening/Closed of
 * the tab's own session and its out-of-process iframes. Nothing is auto-answered: while a dialog is open the page's
 * script is stopped and many CDP calls stall, so every tab-scoped call races against this state (dispatcher.ts):
 * one open at the start fails at once with dialog_pending; one that opens during the call aborts the call's signal
 * with dialog_pending (an action turns that into its effect `dialog`).
 */
import { BskError } from "../../../protocol/errors.ts";
import { tapCdp } from "../cdp/debugger.ts";
import { heldBy } from "../cdp/runaway.ts";
import { emit } from "../ports/outbox.ts";
import type { CdpTarget } from "../cdp/refs/target.ts";
import { ownerOfTab } from "../session/sessions.ts";
import { KeyedListeners } from "../shared/keyed-listeners.ts";

export type DialogType = "alert" | "confirm" | "prompt" | "beforeunload";

export interface OpenDialog {
  type: DialogType;
  message: string;
  default_prompt?: string;
  url: string;
  /** The CDP session that must answer it. */
  target: CdpTarget;
}

const MESSAGE_CAP = 4096;
const open = new Map<number, OpenDialog>();
const listeners = new KeyedListeners<number, [OpenDialog]>();

function asType(t: unknown): DialogType {
  return t === "confirm" || t === "prompt" || t === "beforeunload" ? t : "alert";
}

export function installDialogTracking(): void {
  // A page showing a dialog is held by it, not by a loop: runaway.ts never pauses or crashes it.
  heldBy((tabId) => open.has(tabId));
  tapCdp({
    onEvent(source, method, p) {
      if (method === "Page.javascriptDialogOpening") {
        const d: OpenDialog = {
          type: asType(p.type),
          message: String(p.message ?? "").slice(0, MESSAGE_CAP),
          url: String(p.url ?? ""),
          target: source,
        };
        if (d.type === "prompt") d.default_prompt = String(p.defaultPrompt ?? "");
        open.set(source.tabId, d);
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
        if (d && (d.target.sessionId ?? "") === (source.sessionId ?? "")) open.delete(source.tabId);
        const owner = ownerOfTab(source.tabId);
        if (owner) emit("dialog.closed", { session_id: owner.session.session_id, tab_id: source.tabId, accepted: p.result === true });
      }
    },
    onDetach(tabId) {
      open.delete(tabId);
    },
  });
}

export function openDialog(tabId: number): OpenDialog | undefined {
  return open.get(tabId);
}

/** Forget a dialog we just answered (its Closed event follows). */
export function answered(tabId: number, d: OpenDialog): void {
  if (open.get(tabId) === d) open.delete(tabId);
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
