/**
 * The page-world script (entrypoints/page-world/) ↔ bsk's worlds. Both share only the DOM, so they talk with events
 * on the document: the snapshot asks the drop registry (messages/drops.ts), and an action's effect probe asks the
 * work registry whether the page has work queued for the next frame or task (page/effects.ts).
 *
 * Threat: the page owns its world and sees these events, so it can answer them itself or stop them. For the work
 * ask, what it gains is a shorter or a longer settle after bsk's input on its own page: a change it then makes late is
 * reported as no effect, which it could get anyway by making that change after a timer. Nothing else is read from the
 * answer, and a registry that is missing (a document older than the attachment) or silent means "wait".
 */

/**
 * A page-world script about to install → the document: cancelled when one is there already (a document is offered
 * it again after a worker restart). A page that cancels it itself only goes without it (no [drop] hints of its own,
 * and a settle of a whole frame after each input).
 */
export const PAGE_WORLD_HELLO = "bsk-page-world-hello";
/** Effect probe → work registry, when armed before an input: "count what the page posts from now on". */
export const WORK_MARK = "bsk-work-mark";
/**
 * Effect probe → work registry, once the page has handled the input: cancelled when the page has nothing queued
 * that could change the DOM in the next frame or task (no animation frame callback, no short timer, nothing posted
 * since the mark, no listener of an event the browser fires in the frame, no observer of size or visibility).
 */
export const WORK_ASK = "bsk-work-ask";
/**
 * Effect probe → work registry, after the frame after the input: cancelled when something the page queued is still
 * due — a short timer (under a frame, not an interval) to fire, a message it posted (to its window or through a
 * MessageChannel) undelivered. The probe then waits a little longer (page/effects.ts). Unlike WORK_ASK, silence means
 * "nothing due": a document without the registry waits for the frame and no more.
 */
export const WORK_DUE_ASK = "bsk-work-due";
