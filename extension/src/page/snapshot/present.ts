/**
 * snapshot / observe results: a capture turned into the part the agent asked for (full, --diff, --viewport,
 * --max-depth), cut to --max-tokens with a cursor for the rest, and remembered for --diff and find.
 */
import type { Result } from "../../../../protocol/catalog.ts";
import type { Capture } from "./capture.ts";
import { diffLines } from "./diff.ts";
import { bodyLines, headerReserve, indent, lineCosts, partEnds, renderPart, type CaptureMeta } from "./render.ts";
import { cursorFor, fromCursor, getLast, keepPaged, setLast, type PagedCapture } from "./store.ts";

type SnapshotResult = Result<"snapshot">;

export interface PresentOptions {
  sessionId: string;
  maxTokens: number;
  viewport: boolean;
  diff: boolean;
  maxDepth?: number;
  /** Lines appended after the body (e.g. what hover probing revealed). */
  appendix?: string[];
  /** Header marks of the tab's state (a browser prompt waiting for the person). */
  marks?: string[];
  /** The tab is not the session's current one: the header names it. */
  otherTab?: boolean;
  /** The header's URL keeps its query. */
  fullUrl?: boolean;
}

function ago(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 90 ? `${s}s ago` : `${Math.round(s / 60)}m ago`;
}

function part(c: PagedCapture, partNo: number): SnapshotResult {
  const p = renderPart(c.meta, c.body, c.costs, c.ends, partNo, c.extra);
  const more = partNo < c.ends.length;
  return {
    tab_id: c.tabId,
    url: c.meta.url,
    title: c.meta.title,
    text: p.text,
    tokens: p.tokens,
    refs: p.refs,
    truncated: more,
    cursor: more ? cursorFor(c, c.ends[partNo - 1]!, partNo + 1) : null,
    ...(c.diff ? { diff: true } : {}),
  };
}

export function present(cap: Capture, o: PresentOptions): SnapshotResult {
  const meta: CaptureMeta = {
    tabId: cap.tabId,
    url: cap.url,
    title: cap.title,
    ...(o.otherTab ? { showTab: true } : {}),
    ...(o.fullUrl ? { fullUrl: true } : {}),
  };
  // Kept for --diff and find, whose lines are read without the tree around them: each with its label.
  const full = cap.lines.map((l) => indent(l.alone ? { ...l, text: l.alone } : l));
  const previous = getLast(o.sessionId, cap.tabId);
  setLast(o.sessionId, cap.tabId, { meta, lines: full, at: Date.now() });

  let body: string[];
  const extra: string[] = [...(o.marks ?? [])];
  let diff = false;
  if (o.diff && previous) {
    const d = diffLines(previous.lines, full);
    diff = true;
    body = d.lines;
    extra.push(
      d.added || d.removed
        ? `diff vs snapshot ${ago(Date.now() - previous.at)}: +${d.added} -${d.removed}`
        : `no change since the snapshot ${ago(Date.now() - previous.at)}`,
    );
  } else {
    body = bodyLines(cap.lines, { viewport: o.viewport, maxDepth: o.maxDepth, covered: cap.covered });
    if (o.diff) extra.push("no earlier snapshot of this tab: full snapshot");
  }
  if (o.appendix?.length) body.push(...o.appendix);
  const costs = lineCosts(body);
  const paged = keepPaged({
    sessionId: o.sessionId,
    tabId: cap.tabId,
    meta,
    body,
    costs,
    extra,
    diff,
    ends: partEnds(costs, o.maxTokens, headerReserve(meta, extra)),
  });
  return part(paged, 1);
}

/** The next part of a paged snapshot, cut at the first call's budget (a cursor continues that split). */
export function continueFrom(sessionId: string, tabId: number, cursor: string): SnapshotResult {
  const { capture, partNo } = fromCursor(cursor, sessionId, tabId);
  return part(capture, partNo);
}
