/**
 * What the recorder in the page (entrypoints/bsk-recorder.ts) tells the worker: through a CDP binding that exists
 * only in bsk's own "bsk-record" world of each document, so page scripts can neither see nor call it.
 * Type-only imports: the page script carries no schema library.
 */
import type { RawStep } from "./fold.ts";

export const RECORD_BINDING = "__bskRecord";
export const RECORD_WORLD = "bsk-record";

/**
 * `ask`: the step's event was on an element of bsk's overlay's name that the recorder's world did not know; the worker
 * finds out whether it was bsk's host (page/own-overlay.ts) and drops the step if so.
 */
export type PageReport = { kind: "step"; step: RawStep; ask?: number } | { kind: "page"; url: string; title: string };
