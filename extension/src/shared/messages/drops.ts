/**
 * The drop registry's two events between the page's own world (entrypoints/page-world/drops.ts) and bsk's snapshot world
 * (src/page/snapshot/page/drops.ts). Both worlds share only the DOM, so the snapshot asks with an event on the
 * document and the registry answers with one event on each element that has drop, dragover or dragenter listeners.
 *
 * Threat: the page owns its world and sees both events, so it can answer with marks of its own, on any element, or
 * stop ours. What it gains is a `[drop]` hint on elements of its choice (which it could get by adding a listener)
 * or the loss of hints on its own drop zones (which it could get by not having them). The snapshot takes nothing
 * else from the answer: only connected elements of the asked document count, at most MAX_DROP_MARKS, and nothing
 * the page does in its listeners can throw into the walk (a listener's exception stays in its world).
 */

/** Snapshot → page world, on the document: "mark your drop targets now". */
export const DROP_ASK = "bsk-drop-ask";
/** Page world → snapshot, on each drop target (the document for window, document, <html> and <body>). */
export const DROP_MARK = "bsk-drop-mark";
/** Marks taken per snapshot of a document; a page that answers with more is cut off there. */
export const MAX_DROP_MARKS = 2000;
