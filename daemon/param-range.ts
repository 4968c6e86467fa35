/**
 * An out-of-range number in a call's params, said in the caller's terms: the whole allowed range (read from the
 * params schema itself, the single source), durations (`*_ms`) as durations.
 */
import type { z } from "zod";
import { formatDuration } from "../protocol/duration.ts";

export interface Range {
  min?: number;
  max?: number;
}

type Node = { _zod?: { def?: { innerType?: Node } }; shape?: Record<string, Node>; minValue?: number | null; maxValue?: number | null };

function unwrap(node: Node | undefined): Node | undefined {
  while (node?._zod?.def?.innerType) node = node._zod.def.innerType;
  return node;
}

/** The allowed range of the number field at `path`, when the schema states one (safe-integer bounds do not count). */
export function rangeAt(schema: z.ZodType, path: readonly PropertyKey[]): Range | null {
  let node = unwrap(schema as unknown as Node);
  for (const key of path) node = unwrap(node?.shape?.[String(key)]);
  if (!node || !("minValue" in node)) return null;
  const stated = (n: number | null | undefined) => typeof n === "number" && Number.isFinite(n) && Math.abs(n) < Number.MAX_SAFE_INTEGER;
  const range: Range = {};
  if (stated(node.minValue)) range.min = node.minValue!;
  if (stated(node.maxValue)) range.max = node.maxValue!;
  return range.min === undefined && range.max === undefined ? null : range;
}

/** `from 1s to 23h`, `from 0 to 7680`, `at most 100`. */
export function rangeText(range: Range, key: string): string {
  const show = (n: number) => (key.endsWith("_ms") && n > 0 ? formatDuration(n) : String(n));
  if (range.min !== undefined && range.max !== undefined) return `from ${show(range.min)} to ${show(range.max)}`;
  return range.min !== undefined ? `at least ${show(range.min)}` : `at most ${show(range.max!)}`;
}
