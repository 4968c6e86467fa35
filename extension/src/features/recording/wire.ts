/**
 * What the recorder in the page (entrypoints/bsk-recorder.ts) tells the worker: through a CDP binding that exists
 * only in bsk's own "bsk-record" world of each document, so page scripts can neither see nor call it.
 * Type-only imports: the page script carries no schema library.
 */
import type { RawStep } from "./fold.ts";

export const RECORD_BINDING = "__bskRecord";
export const RECORD_WORLD = "bsk-record";

export type PageReport = { kind: "step"; step: RawStep } | { kind: "page"; url: string; title: string };
