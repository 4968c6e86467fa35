/**
 * What the hands content script (entrypoints/hands.ts) and the worker (agent-input.ts) say to each other.
 * Type-only besides constants: the content script runs in every frame and carries no schema library.
 */

/** Trusted page events that are someone's hands: a press, a key, an edit, a drop. Never moves, hovers or scrolls. */
export const HAND_KINDS = ["pointerdown", "keydown", "beforeinput", "drop"] as const;
export type HandKind = (typeof HAND_KINDS)[number];

/** One such event in one document: `doc` is the document's random id, `seq` counts its events from 1. */
export interface HandEvent {
  doc: string;
  seq: number;
  kind: HandKind;
  /** When it happened (ms since the epoch: the page's time origin plus the event's time stamp). */
  at?: number;
}

/** Content script → worker, while some session is live: the newest event of a burst (it decides the earlier ones). */
export interface HandsReport extends HandEvent {
  type: "hands.input";
}

/** What a drain (scripting.executeScript in the content scripts' world) returns per frame: its events after `since`. */
export interface HandsDrain {
  doc: string;
  events: HandEvent[];
}

/** The content script's entry point in its isolated world (globalThis), called by the worker's drain. */
export const HANDS_GLOBAL = "__bskHands";
/** Set by the overlay content script in the same world: its host element, whose events are bsk's own UI. */
export const OVERLAY_HOST_GLOBAL = "__bskOverlayHost";
