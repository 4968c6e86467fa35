/**
 * From captured lines to the text an agent reads: depth cap, viewport-first order, the modal's covered summary,
 * the header, and parts cut to a token budget. Pure (unit-tested); the capture itself is capture.ts.
 */
import { estimateTokens, tokenWeight } from "./tokens.ts";

export interface CapturedLine {
  depth: number;
  text: string;
  /** Intersects the viewport (computed only for --viewport). */
  vis: boolean;
  /** The line as it reads alone, with the `in:`/`nth=` label its place in the tree made unneeded (find, --diff). */
  alone?: string;
}

export interface CaptureMeta {
  tabId: number;
  url: string;
  title: string;
  /** Name the tab in the header: it is not the session's current tab (the one every command defaults to). */
  showTab?: boolean;
  /** The URL with its query string (`--full-url`); otherwise `?…` stands for it. */
  fullUrl?: boolean;
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

/** The URL as the header shows it: its query (often long, rarely needed) cut to `?…` unless asked for. */
export function shownUrl(url: string, full = false): string {
  const q = url.indexOf("?");
  if (full || q < 0) return url;
  const hash = url.indexOf("#", q);
  return `${url.slice(0, q)}?…${hash >= 0 ? url.slice(hash) : ""}`;
}

/** Where the snapshot is from, and which part: its size is the result's `tokens` (`--json`), not said every time. */
export function header(meta: CaptureMeta, extra: string[] = []): string {
  const parts = [meta.title || "(untitled)", shownUrl(meta.url, meta.fullUrl), ...extra];
  return `# ${meta.showTab ? `tab ${meta.tabId} · ` : ""}${parts.join(" · ")}`;
}

/**
 * Per-line token costs, computed once per capture: the line, its indentation run and the line break after it
 * (a break after punctuation merges into it).
 */
export function lineCosts(body: readonly string[]): number[] {
  return body.map((l) => tokenWeight(l) + (l.startsWith("  ") ? 1 : 0) + (/[\p{L}\p{N}]$/u.test(l) ? 1 : 0));
}

/** What the header can cost at most (widest part marker): kept out of each part's budget. */
export function headerReserve(meta: CaptureMeta, extra: string[] = []): number {
  return estimateTokens(header(meta, [...extra, "part 999/999"])) + 1;
}

/** End (exclusive) of the part starting at `start`: as many lines as fit the budget, at least one. */
export function partEnd(costs: readonly number[], start: number, maxTokens: number, reserve = 0): number {
  const budget = Math.max(1, maxTokens - reserve);
  let used = 0;
  let end = start;
  while (end < costs.length && (end === start || used + costs[end]! <= budget)) used += costs[end++]!;
  return end;
}

/** Where each part ends (exclusive), cut once for the whole capture, so every part's `part k/n` has the same n. */
export function partEnds(costs: readonly number[], maxTokens: number, reserve = 0): number[] {
  const ends: number[] = [];
  for (let s = 0; s < costs.length; s = ends.at(-1)!) ends.push(partEnd(costs, s, maxTokens, reserve));
  return ends.length ? ends : [0];
}

export interface Part {
  text: string;
  tokens: number;
  refs: number;
}

/** Part `partNo` of `ends.length`: header (with `part k/n` when there are several) and its lines. */
export function renderPart(
  meta: CaptureMeta,
  body: readonly string[],
  costs: readonly number[],
  ends: readonly number[],
  partNo: number,
  extra: string[] = [],
): Part {
  const start = partNo > 1 ? ends[partNo - 2]! : 0;
  const end = ends[partNo - 1]!;
  const slice = body.slice(start, end);
  let weight = 0;
  for (let i = start; i < end; i++) weight += costs[i]!;
  const marks = ends.length > 1 ? [...extra, `part ${partNo}/${ends.length}`] : extra;
  const head = header(meta, marks);
  const tokens = Math.ceil(weight) + estimateTokens(head) + 1;
  const text = [head, ...slice].join("\n");
  let refs = 0;
  for (const l of slice) refs += (l.match(/@e\d+/g) ?? []).length;
  return { text, tokens, refs };
}
