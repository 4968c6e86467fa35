/**
 * Snapshots kept briefly in the worker: each paged capture (for --cursor), and per session and tab the last full
 * snapshot (the base of --diff and what `find` searches). Lost with the worker; a cursor then says to re-snapshot.
 * A tab's last snapshots go when the tab is detached (closed, returned, its session ended), and at most MAX_LAST
 * are kept in all (the least recently taken go first), so the worker keeps none per tab long gone.
 */
import { BskError } from "../../../../protocol/errors.ts";
import { tapCdp } from "../../cdp/debugger.ts";
import type { CaptureMeta } from "./render.ts";

export interface PagedCapture {
  id: string;
  sessionId: string;
  tabId: number;
  meta: CaptureMeta;
  body: string[];
  costs: number[];
  /** Header marks every part repeats (e.g. the diff summary). */
  extra: string[];
  diff: boolean;
  /** Where each part ends, cut once at the first call's budget: every part keeps its `part k/n`. */
  ends: number[];
  at: number;
}

export interface LastSnapshot {
  meta: CaptureMeta;
  /** Indented lines in document order. */
  lines: string[];
  at: number;
}

const CURSOR_TTL_MS = 10 * 60_000;
const MAX_PAGED = 16;
/** Last snapshots kept, over every session and tab (a tab's own go when it is detached). */
export const MAX_LAST = 64;

const paged = new Map<string, PagedCapture>();
const last = new Map<string, LastSnapshot>();

const key = (sessionId: string, tabId: number) => `${sessionId}|${tabId}`;

function newId(): string {
  const b = new Uint8Array(6);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

export function keepPaged(c: Omit<PagedCapture, "id" | "at">): PagedCapture {
  const now = Date.now();
  for (const [id, p] of paged) if (now - p.at > CURSOR_TTL_MS) paged.delete(id);
  while (paged.size >= MAX_PAGED) paged.delete(paged.keys().next().value!);
  const stored = { ...c, id: newId(), at: now };
  paged.set(stored.id, stored);
  return stored;
}

export function cursorFor(c: PagedCapture, start: number, partNo: number): string {
  return `${c.id}.${start}.${partNo}`;
}

export function fromCursor(cursor: string, sessionId: string, tabId: number): { capture: PagedCapture; partNo: number } {
  const m = /^([0-9a-f]{12})\.(\d+)\.(\d+)$/.exec(cursor);
  const expired = () =>
    new BskError("not_found", `snapshot cursor ${cursor} has expired or is unknown`, {
      hint: "Cursors last 10 minutes and only until the extension restarts: take a new bsk snapshot.",
      data: { reason: "cursor_expired", cursor },
    });
  if (!m) {
    throw new BskError("invalid_params", `${JSON.stringify(cursor)} is not a snapshot cursor`, {
      hint: "Pass the cursor exactly as the previous snapshot part returned it.",
      data: { reason: "bad_cursor" },
    });
  }
  const capture = paged.get(m[1]!);
  if (!capture || Date.now() - capture.at > CURSOR_TTL_MS) throw expired();
  if (capture.sessionId !== sessionId || capture.tabId !== tabId) {
    throw new BskError("invalid_params", `cursor ${cursor} belongs to another tab or session`, {
      hint: `Continue it with --tab ${capture.tabId} in the session that took the snapshot.`,
      data: { reason: "cursor_other_tab", tab_id: capture.tabId },
    });
  }
  const start = Number(m[2]);
  const partNo = Number(m[3]);
  if (partNo < 2 || partNo > capture.ends.length || capture.ends[partNo - 2] !== start) throw expired();
  return { capture, partNo };
}

export function setLast(sessionId: string, tabId: number, s: LastSnapshot): void {
  const k = key(sessionId, tabId);
  last.delete(k);
  last.set(k, s);
  while (last.size > MAX_LAST) last.delete(last.keys().next().value!);
}

/** How many last snapshots the worker holds (a test's view of the bound). */
export function lastCount(): number {
  return last.size;
}

/** A detached tab (closed, returned, its session ended) is no session's to diff or search any more. */
export function installSnapshotStore(): void {
  tapCdp({
    onEvent() {},
    onDetach(tabId) {
      for (const k of last.keys()) if (k.endsWith(`|${tabId}`)) last.delete(k);
    },
  });
}

export function getLast(sessionId: string, tabId: number): LastSnapshot | undefined {
  return last.get(key(sessionId, tabId));
}
