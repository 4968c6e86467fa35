/**
 * Help requests waiting for the person, one per tab, in the worker. The panel in the page is only a view of this:
 * a reload or an SPA route change re-arms it from here (the overlay asks on load), and only an explicit signal ends
 * a request: Done, Cancel, the criteria holding (reported by the page), the timeout, the call's abort, the tab closing.
 */
import { BskError } from "../../../../protocol/errors.ts";
import { abortError } from "../../shared/abort.ts";
import type { HelpCriteriaView, HelpView, OverlayRequest } from "../../shared/messages/overlay.ts";

export type HelpOutcome = "completed" | "continued" | "cancelled" | "timed_out";

interface ActiveHelp {
  view: HelpView;
  tabId: number;
  /** What the person typed in the note field (its frame sends it here, note-frame.ts); never shown to the page. */
  note: string;
  settle(outcome: HelpOutcome): void;
  fail(err: BskError): void;
}

const NOTE_MAX = 4000;

const active = new Map<number, ActiveHelp>();
const listeners: ((tabId: number) => void)[] = [];

/** The overlay hub re-renders a tab whose help request started or ended. */
export function onHelpChange(l: (tabId: number) => void): void {
  listeners.push(l);
}

function changed(tabId: number): void {
  for (const l of listeners) l(tabId);
}

export function helpView(tabId: number): HelpView | null {
  return active.get(tabId)?.view ?? null;
}

export function hasHelp(tabId: number): boolean {
  return active.has(tabId);
}

/** The note kept for the tab's request `helpId`; null when that request is not the tab's pending one. */
export function helpNote(tabId: number, helpId: string): string | null {
  const entry = active.get(tabId);
  return entry && entry.view.id === helpId ? entry.note : null;
}

/** What the tab's request `helpId` asks (for the note frame, which shows it); null when it is not the pending one. */
export function helpWords(tabId: number, helpId: string): { prompt: string; title?: string } | null {
  const entry = active.get(tabId);
  if (!entry || entry.view.id !== helpId) return null;
  return { prompt: entry.view.prompt, ...(entry.view.title !== undefined && { title: entry.view.title }) };
}

/** The note field of the tab's request `helpId` says what it holds now. */
export function setHelpNote(tabId: number, helpId: string, note: string): void {
  const entry = active.get(tabId);
  if (entry && entry.view.id === helpId) entry.note = note.slice(0, NOTE_MAX);
}

export interface HelpRequest {
  id: string;
  tabId: number;
  prompt: string;
  title?: string;
  until?: HelpCriteriaView;
  targets: number;
  timeoutMs: number;
}

/** Shows the request in its tab and waits for how it ends; the note is whatever the person typed by then. */
export function waitForPerson(req: HelpRequest, signal: AbortSignal): Promise<{ outcome: HelpOutcome; note: string }> {
  if (active.has(req.tabId)) {
    return Promise.reject(
      new BskError("session_busy", `tab ${req.tabId} already shows a help request`, {
        data: { reason: "help_pending", tab_id: req.tabId },
      }),
    );
  }
  return new Promise((resolve, reject) => {
    const view: HelpView = {
      id: req.id,
      prompt: req.prompt,
      targets: req.targets,
      ...(req.title !== undefined && { title: req.title }),
      ...(req.until !== undefined && { until: req.until }),
    };
    const end = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (active.get(req.tabId) === entry) active.delete(req.tabId);
      changed(req.tabId);
    };
    const entry: ActiveHelp = {
      view,
      tabId: req.tabId,
      note: "",
      settle: (outcome) => {
        end();
        resolve({ outcome, note: entry.note });
      },
      fail: (err) => {
        end();
        reject(err);
      },
    };
    const onAbort = () => entry.fail(abortError(signal));
    const timer = setTimeout(() => entry.settle("timed_out"), req.timeoutMs);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    active.set(req.tabId, entry);
    changed(req.tabId);
  });
}

/** A message from the overlay in `tabId` about its help request; stale ids (an earlier request) are ignored. */
export function fromPage(tabId: number, msg: OverlayRequest): void {
  const entry = active.get(tabId);
  if (!entry || !("help_id" in msg) || msg.help_id !== entry.view.id) return;
  switch (msg.type) {
    case "help.done":
      return entry.settle("continued");
    case "help.cancel":
      return entry.settle("cancelled");
    case "help.completed":
      return entry.settle("completed");
    case "help.invalid":
      return entry.fail(
        new BskError("invalid_params", `request_help: the page cannot check the criteria: ${msg.message}`, {
          data: { reason: "invalid_criteria" },
        }),
      );
  }
}

/** The tab closed: its request fails (there is nobody left to help in it). */
export function tabGone(tabId: number): void {
  active
    .get(tabId)
    ?.fail(new BskError("not_found", `tab ${tabId} was closed during the help request`, { data: { reason: "tab_closed", tab_id: tabId } }));
}
