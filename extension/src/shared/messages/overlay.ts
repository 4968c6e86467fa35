/**
 * What the overlay content script and the service worker say to each other (runtime messages). The worker is the
 * authority: it decides which tab shows what, and it reads the session from the sender's tab, never from the page.
 * Type-only imports here: the content script runs in every page and carries no schema library.
 */

/**
 * A port the overlay holds open while it draws anything, never used for messages: it breaks at once when the extension
 * is reloaded, updated or removed, and the overlay, whose context is then dead, takes its drawing down.
 */
export const OVERLAY_LIFE_PORT = "bsk-overlay-life";

/**
 * The overlay's host element in the top document (a closed shadow root inside). A page can make elements of this name
 * too: bsk's in-page code only looks among them for its own host, which it knows by identity (page/own-overlay.ts).
 */
export const OVERLAY_TAG = "bsk-overlay";

/**
 * The host's proof of being bsk's: a random mark per host on an element of its closed shadow root (which the page
 * cannot read), kept in the content scripts' world under OVERLAY_MARK_GLOBAL, where the worker reads it.
 */
export const OVERLAY_MARK_ATTR = "data-bsk-mark";
export const OVERLAY_MARK_GLOBAL = "__bskOverlayMark";

export interface HelpCriteriaView {
  url_contains?: string;
  url_matches?: string;
  element_exists?: string;
  element_missing?: string;
  text_present?: string;
  text_absent?: string;
  stable_ms: number;
}

export interface HelpView {
  id: string;
  title?: string;
  prompt: string;
  until?: HelpCriteriaView;
  /** How many targets are marked in the page (attribute HELP_TARGET_ATTR = id). */
  targets: number;
}

/** Marks the elements a help request highlights (set by the worker in bsk's isolated world, read by the overlay). */
export const HELP_TARGET_ATTR = "data-bsk-help-target";

/** A recording in this tab (record start): the record panel with its step count and Finish. */
export interface RecordView {
  purpose?: string;
  steps: number;
}

/**
 * A page-changing call waiting for the person's Allow (features/approval/): what it is about to do, in words. The
 * first call waiting on the tab is shown; the others wait their turn.
 */
export interface ApprovalView {
  id: string;
  /** "click button 'Pay now'": never a value typed into a field. */
  text: string;
  cause: "ask_first_site" | "confirm_writes";
  /** The tab's top-level origin when it was asked. */
  origin?: string;
  /** Epoch ms when the wait ends (then the call fails, approval_denied). */
  deadline: number;
  /** Calls waiting behind this one on the tab. */
  queued: number;
}

export interface OverlayView {
  session_id: string;
  name?: string;
  /** Where the session's agent is when it is not on this computer: the server's host ("remote agent on HOST"). */
  remote_host?: string;
  state: "live" | "taken_over";
  /** A call of the session has been running on this tab for a moment (features/overlay/glow.ts): the edge glow. */
  busy: boolean;
  /** "Show control hints": the pill and the glow. */
  hints: boolean;
  help: HelpView | null;
  /** While recording, the record panel replaces the pill and glow: the person is the one acting. */
  record: RecordView | null;
  /** A call waiting for the person's Allow: the approval panel, shown whatever the hints switch says. */
  approval: ApprovalView | null;
}

/** Content script → worker. */
export type OverlayRequest =
  | { type: "overlay.hello" }
  | { type: "overlay.takeover" }
  | { type: "overlay.resume" }
  | { type: "overlay.stop" }
  /** The pill should show but the browser has not seen it for a while (the page hides it), or sees it again. */
  | { type: "overlay.hidden"; hidden: boolean }
  /** The person's Finish in the record panel. */
  | { type: "record.panel_finish" }
  /** Done and Cancel: the note is the one the worker holds (the note field's frame sends it there, messages/note.ts). */
  | { type: "help.done"; help_id: string }
  | { type: "help.cancel"; help_id: string }
  /** The criteria held for stable_ms in this document. */
  | { type: "help.completed"; help_id: string }
  /** The criteria cannot be checked here (e.g. an invalid selector). */
  | { type: "help.invalid"; help_id: string; message: string }
  /** The person's Allow or Deny in the approval panel (a trusted click). */
  | { type: "approval.answer"; approval_id: string; allow: boolean };

/** Worker → content script. */
export type OverlayPush =
  | { type: "overlay.view"; view: OverlayView | null }
  /** Hide everything (a screenshot is being taken) or show it again; answered once the page has restyled. */
  | { type: "overlay.capture"; hidden: boolean }
  /** The URL changed without a new document (history.pushState): check the criteria again. */
  | { type: "help.recheck" };
