/**
 * From captured lines to the text an agent reads: depth cap, viewport-first order, the modal's covered summary,
 * the header, and parts cut to a token budget. Pure (unit-tested); the capture itself is capture.ts.
 */
import { estimateTokens } from "./tokens.ts";

export interface CapturedLine {
  depth: number;
  text: string;
  /** Intersects the viewport (computed only for --viewport). */
  vis: boolean;
}

export interface CaptureMeta {
  tabId: number;
  url: string;
  title: string;
}

export function indent(l: CapturedLine): string {
  return "  ".repeat(l.depth) + l.text;
}

export interface BodyOptions {
  viewport: boolean;
  maxDepth?: number;
  /** Controls a modal dialog covers, when one is the active layer. */
  covered?: number | null;
}

/** The snapshot's body lines, in reading order. */
export function bodyLines(lines: readonly CapturedLine[], o: BodyOptions): string[] {
  let kept = lines;
  let deeper = 0;
  if (o.maxDepth !== undefined) {
    const max = o.maxDepth;
    kept = lines.filter((l) => l.depth < max);
    deeper = lines.length - kept.length;
  }
  let out: string[];
  if (o.viewport) {
    const inside = kept.filter((l) => l.vis);
    const outside = kept.filter((l) => !l.vis);
    out = inside.map(indent);
    if (outside.length) out.push("# outside the viewport:", ...outside.map(indent));
  } else {
    out = kept.map(indent);
  }
  if (o.covered !== undefined && o.covered !== null) out.push(`# covered by the dialog: ${o.covered} controls, not actionable`);
  if (deeper) out.push(`# ${deeper} deeper lines not shown (--max-depth ${o.maxDepth})`);
  return out;
}

export function header(meta: CaptureMeta, tokens: number, extra: string[] = []): string {
  const parts = [`# tab ${meta.tabId}`, meta.title || "(untitled)", meta.url, ...extra, `~${tokens} tokens`];
  return parts.join(" · ");
}

/** Per-line token costs (newline included), computed once per capture. */
export function lineCosts(body: readonly string[]): number[] {
  return body.map((l) => estimateTokens(l) + 1);
}

/** What the header can cost at most (widest part marker and token count): kept out of each part's budget. */
export function headerReserve(meta: CaptureMeta, extra: string[] = []): number {
  return estimateTokens(header(meta, 999_999, [...extra, "part 999/999"])) + 2;
}

/** End (exclusive) of the part starting at `start`: as many lines as fit the budget, at least one. */
export function partEnd(costs: readonly number[], start: number, maxTokens: number, reserve = 0): number {
  const budget = Math.max(1, maxTokens - reserve);
  let used = 0;
  let end = start;
  while (end < costs.length && (end === start || used + costs[end]! <= budget)) used += costs[end++]!;
  return end;
}

/** How many parts the lines from `start` take at this budget. */
export function partsFrom(costs: readonly number[], start: number, maxTokens: number, reserve = 0): number {
  let n = 0;
  for (let s = start; s < costs.length; s = partEnd(costs, s, maxTokens, reserve)) n++;
  return Math.max(n, 1);
}

export interface Part {
  text: string;
  tokens: number;
  refs: number;
  end: number;
}

/** One part: header (with `part k/n` when the body does not fit whole) and lines [start, end). */
export function renderPart(
  meta: CaptureMeta,
  body: readonly string[],
  costs: readonly number[],
  start: number,
  maxTokens: number,
  partNo: number,
  extra: string[] = [],
): Part {
  const reserve = headerReserve(meta, extra);
  const end = partEnd(costs, start, maxTokens, reserve);
  const total = partNo - 1 + partsFrom(costs, start, maxTokens, reserve);
  const slice = body.slice(start, end);
  let tokens = 0;
  for (let i = start; i < end; i++) tokens += costs[i]!;
  const marks = total > 1 ? [...extra, `part ${partNo}/${total}`] : extra;
  const head = header(meta, 0, marks);
  tokens += estimateTokens(head) + 2;
  const text = [header(meta, tokens, marks), ...slice].join("\n");
  let refs = 0;
  for (const l of slice) refs += (l.match(/@e\d+/g) ?? []).length;
  return { text, tokens, refs, end };
}
