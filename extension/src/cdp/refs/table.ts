/**
 * The worker's side of refs: per session, the counter that numbers refs (never reused) and, for each ref handed
 * out, where its node lives — {tab, CDP session, frame, isolated world, document token} — the epoch of the last
 * snapshot that showed it, and its role and name then. The node itself is found in the page (snapshot/page/identity.ts).
 *
 * Kept in chrome.storage.session so a restarted worker still knows them. The counter is saved before a snapshot
 * answers (a number the agent has seen is never handed out again); the table is saved soon after.
 */
import { browser } from "wxt/browser";
import type { CdpTarget } from "./target.ts";

export interface WorldRecord {
  tabId: number;
  /** CDP child session of an out-of-process iframe. */
  sessionId?: string;
  frameId: string;
  contextId: number;
  doc: string;
  /** The document's URL when the snapshot was taken, to say what changed. */
  url: string;
}

export interface RefEntry {
  world: WorldRecord;
  epoch: number;
  role: string;
  name: string;
}

interface Stored {
  next: number;
  epoch: number;
  /** Refs shown before this epoch are stale (e.g. the person took over). */
  minEpoch: number;
  worlds: WorldRecord[];
  /** ref number → [index in worlds, epoch, role, name] */
  refs: Record<string, [number, number, string, string]>;
}

interface SessionRefs {
  next: number;
  epoch: number;
  minEpoch: number;
  refs: Map<number, RefEntry>;
  /** A ref was added or moved to another world since the last save. Epoch-only updates are not saved: after a worker restart such a ref can only look older (staler), never fresher. */
  dirty: boolean;
}

const COUNTER_KEY = (s: string) => `refctr:${s}`;
const TABLE_KEY = (s: string) => `refs:${s}`;

const tables = new Map<string, SessionRefs>();
const loading = new Map<string, Promise<SessionRefs>>();

async function load(sessionId: string): Promise<SessionRefs> {
  const got = await browser.storage.session.get([COUNTER_KEY(sessionId), TABLE_KEY(sessionId)]);
  const stored = got[TABLE_KEY(sessionId)] as Stored | undefined;
  const counter = (got[COUNTER_KEY(sessionId)] as number | undefined) ?? 1;
  const refs = new Map<number, RefEntry>();
  for (const [n, [wi, epoch, role, name]] of Object.entries(stored?.refs ?? {})) {
    const world = stored!.worlds[wi];
    if (world) refs.set(Number(n), { world, epoch, role, name });
  }
  return { next: Math.max(counter, stored?.next ?? 1), epoch: stored?.epoch ?? 0, minEpoch: stored?.minEpoch ?? 0, refs, dirty: false };
}

export async function sessionRefs(sessionId: string): Promise<SessionRefs> {
  const known = tables.get(sessionId);
  if (known) return known;
  let pending = loading.get(sessionId);
  if (!pending) {
    pending = load(sessionId).then((t) => {
      tables.set(sessionId, t);
      loading.delete(sessionId);
      return t;
    });
    loading.set(sessionId, pending);
  }
  return pending;
}

export async function lookupRef(sessionId: string, n: number): Promise<{ entry: RefEntry | undefined; stale: boolean }> {
  const t = await sessionRefs(sessionId);
  const entry = t.refs.get(n);
  return { entry, stale: entry !== undefined && entry.epoch < t.minEpoch };
}

/** Starts a snapshot: a new epoch. */
export async function beginEpoch(sessionId: string): Promise<number> {
  const t = await sessionRefs(sessionId);
  return ++t.epoch;
}

/** The next unused ref number for the session. */
export async function nextRef(sessionId: string): Promise<number> {
  return (await sessionRefs(sessionId)).next;
}

/**
 * Records what one frame's walk numbered: `next` is the counter after it; `shown` are the refs it printed with
 * their role and name. Call saveRefs before answering.
 */
export async function recordRefs(
  sessionId: string,
  world: WorldRecord,
  epoch: number,
  next: number,
  shown: Iterable<[number, string, string]>,
): Promise<void> {
  const t = await sessionRefs(sessionId);
  if (next > t.next) t.next = next;
  for (const [n, role, name] of shown) {
    const known = t.refs.get(n);
    if (!known || !sameWorld(known.world, world)) t.dirty = true;
    t.refs.set(n, { world: known && sameWorld(known.world, world) ? known.world : world, epoch, role, name });
  }
}

function sameWorld(a: WorldRecord, b: WorldRecord): boolean {
  return a.contextId === b.contextId && a.doc === b.doc && a.sessionId === b.sessionId && a.tabId === b.tabId && a.url === b.url;
}

/** Saves the session's counter and table; awaited before a snapshot answers, so a worker killed right after still knows every ref it handed out. */
export async function saveRefs(sessionId: string): Promise<void> {
  const t = tables.get(sessionId);
  if (!t) return;
  if (t.dirty) await write(sessionId, t);
  else await browser.storage.session.set({ [COUNTER_KEY(sessionId)]: t.next });
}

/** Makes every ref shown so far stale (a takeover: the person may have changed anything). */
export async function invalidateRefs(sessionId: string): Promise<void> {
  const t = await sessionRefs(sessionId);
  t.minEpoch = t.epoch + 1;
  queueSave(sessionId);
}

export async function forgetSession(sessionId: string): Promise<void> {
  tables.delete(sessionId);
  await browser.storage.session.remove([COUNTER_KEY(sessionId), TABLE_KEY(sessionId)]);
}

/** Oldest refs beyond this are forgotten (they answer ref_not_found instead of stale_ref); bounds storage. */
const MAX_REFS = 20_000;

function prune(t: SessionRefs): void {
  if (t.refs.size <= MAX_REFS) return;
  const numbers = [...t.refs.keys()].sort((a, b) => a - b);
  for (const n of numbers.slice(0, numbers.length - MAX_REFS)) t.refs.delete(n);
}

function write(sessionId: string, t: SessionRefs): Promise<void> {
  prune(t);
  t.dirty = false;
  const worlds: WorldRecord[] = [];
  const index = new Map<WorldRecord, number>();
  const refs: Stored["refs"] = {};
  for (const [n, e] of t.refs) {
    let wi = index.get(e.world);
    if (wi === undefined) index.set(e.world, (wi = worlds.push(e.world) - 1));
    refs[n] = [wi, e.epoch, e.role, e.name];
  }
  const stored: Stored = { next: t.next, epoch: t.epoch, minEpoch: t.minEpoch, worlds, refs };
  return browser.storage.session.set({ [TABLE_KEY(sessionId)]: stored, [COUNTER_KEY(sessionId)]: t.next });
}

const saving = new Set<string>();
function queueSave(sessionId: string): void {
  if (saving.has(sessionId)) return;
  saving.add(sessionId);
  queueMicrotask(() => {
    saving.delete(sessionId);
    const t = tables.get(sessionId);
    if (!t) return;
    write(sessionId, t).catch((err: unknown) => console.warn(`bsk: could not save refs of session ${sessionId}: ${String(err)}`));
  });
}

export function targetOf(w: WorldRecord): CdpTarget {
  return w.sessionId ? { tabId: w.tabId, sessionId: w.sessionId } : { tabId: w.tabId };
}
