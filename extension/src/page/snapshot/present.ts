/**
 * snapshot / observe results: a capture turned into the part the agent asked for (full, --diff, --viewport,
 * --max-depth), cut to --max-tokens with a cursor for the rest, and remembered for --diff and find.
 */
import type { Result } from "../../../../protocol/catalog.ts";
import type { Capture } from "./capture.ts";
import { diffLines } from "./diff.ts";
import { bodyLines, type CaptureMeta, type CapturedLine, headerReserve, indent, lineCosts, partEnds, renderPart } from "./render.ts";
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
  // Lines as they read alone, each namesake with its label: what --diff and find show, read without the tree
  // around them; and the body wherever a line can be apart from its parent line (--viewport order, parts).
  const labelled = cap.lines.map((l) => (l.alone ? { ...l, text: l.alone } : l));
  const full = labelled.map(indent);
  const previous = getLast(o.sessionId, cap.tabId);
  setLast(o.sessionId, cap.tabId, { meta, lines: full, at: Date.now() });

  const tail = o.appendix ?? [];
  const tree = (lines: CapturedLine[]) => [
    ...bodyLines(lines, { viewport: o.viewport, maxDepth: o.maxDepth, covered: cap.covered }),
    ...tail,
  ];
  let body: string[];
  const extra: string[] = [...(o.marks ?? [])];
  let diff = false;
  if (o.diff && previous) {
    const d = diffLines(previous.lines, full);
    diff = true;
    body = [...d.lines, ...tail];
    extra.push(
      d.added || d.removed
        ? `diff vs snapshot ${ago(Date.now() - previous.at)}: +${d.added} -${d.removed}`
        : `no change since the snapshot ${ago(Date.now() - previous.at)}`,
    );
  } else {
    body = tree(o.viewport ? labelled : cap.lines);
    if (o.diff) extra.push("no earlier snapshot of this tab: full snapshot");
  }
  let costs = lineCosts(body);
  const reserve = headerReserve(meta, extra);
  let ends = partEnds(costs, o.maxTokens, reserve);
  if (ends.length > 1 && !diff && !o.viewport) {
    // Cut into parts: a part can start under a row whose line ends the part before.
    body = tree(labelled);
    costs = lineCosts(body);
    ends = partEnds(costs, o.maxTokens, reserve);
  }
  const paged = keepPaged({ sessionId: o.sessionId, tabId: cap.tabId, meta, body, costs, extra, diff, ends });
  return part(paged, 1);
}

/** The next part of a paged snapshot, cut at the first call's budget (a cursor continues that split). */
export function continueFrom(sessionId: string, tabId: number, cursor: string): SnapshotResult {
  const { capture, partNo } = fromCursor(cursor, sessionId, tabId);
  return part(capture, partNo);
}
