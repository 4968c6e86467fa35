/**
 * The browser prompt each tab is waiting on (a permission bubble, printing, a device chooser, the "open another
 * app?" dialog), like dialogs.ts for JavaScript dialogs: while one is up the browser gives the page no input, so
 * input calls fail with prompt_pending rather than report a click the page never saw. Reads still work.
 *
 * Set when prompts.ts sees a prompt left to the person; cleared when the page says it was answered (a permission
 * call settled), when the tab's document is replaced (a navigation closes the browser's prompts for the page), when
 * the person finished helping in the tab (request-help), or when the tab goes.
 */
import { BskError } from "../../../protocol/errors.ts";
import { tapCdp } from "../cdp/debugger.ts";
import { blindToPrompts } from "../session/input-mark.ts";

export type PromptKind = "permission" | "external_protocol" | "print" | "device_chooser";

export interface PendingPrompt {
  kind: PromptKind;
  url: string;
  detail: Record<string, string>;
}

const pending = new Map<number, PendingPrompt>();

export function setPrompt(tabId: number, p: PendingPrompt): void {
  if (blindToPrompts()) return;
  pending.set(tabId, p);
}

export function promptOf(tabId: number): PendingPrompt | undefined {
  return pending.get(tabId);
}

export function clearPrompt(tabId: number, only?: (p: PendingPrompt) => boolean): void {
  const p = pending.get(tabId);
  if (p && (!only || only(p))) pending.delete(tabId);
}

export function installPromptState(): void {
  tapCdp({
    onEvent(source, method, p) {
      // A new top-level document: the browser closed the old page's prompts with it.
      if (method === "Page.frameNavigated" && !p.frame?.parentId && !source.sessionId) pending.delete(source.tabId);
    },
    onDetach(tabId) {
      pending.delete(tabId);
    },
  });
}

const WHAT: Record<PromptKind, string> = {
  permission: "asks the person for a permission",
  external_protocol: "asks the person whether to open another application",
  print: "shows the print dialog",
  device_chooser: "asks the person to choose a device",
};

export function promptPending(tabId: number, p: PendingPrompt): BskError {
  const about = p.detail.permission ? ` (${p.detail.permission})` : "";
  return new BskError(
    "prompt_pending",
    `the browser ${WHAT[p.kind]}${about} in tab ${tabId}; the tab takes no input until it is answered`,
    {
      data: { tab_id: tabId, prompt: { kind: p.kind, url: p.url, detail: p.detail } },
    },
  );
}

/** Calls that put input into the page: refused while a prompt is up (a navigation, a script, a read are not). */
export const INPUT_METHODS = new Set<string>([
  "click",
  "dblclick",
  "hover",
  "fill",
  "type",
  "press",
  "select",
  "check",
  "uncheck",
  "scroll_to",
  "wheel",
  "focus",
  "blur",
  "drag",
  "mouse.down",
  "mouse.move",
  "mouse.up",
  "upload",
  "download",
]);
