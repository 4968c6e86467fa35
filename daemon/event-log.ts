/**
 * Each session's ordered event log with daemon-owned sequence numbers (what `--since` reads): events born in the
 * daemon (session start/end/adoption, interrupts) and those the extension reports (navigations, tabs, dialogs,
 * console errors, failed requests, …). `EventSink` is the seam: the daemon runs `FileEventLog` (event-store.ts,
 * kept on disk); this in-memory log has the same semantics for tests.
 */
export interface SessionEvent {
  seq: number;
  ts: string;
  event: string;
  data: Record<string, unknown>;
  /** A coalesced burst: this many events of the kind (data is the last one's). */
  count?: number;
}

/** Where an extension event came from: its stream (`<instance>:<stream id>`) and its number there, for de-duplication. */
export interface EventSource {
  key: string;
  seq: number;
}

export interface AppendExtra {
  count?: number;
  source?: EventSource;
}

export interface EventQuery {
  since?: number;
  limit?: number;
  /** Kinds to keep: an exact name or a family prefix (`tab` keeps tab.opened and tab.closed). */
  types?: readonly string[];
}

export interface EventPage {
  events: SessionEvent[];
  /** The cursor to pass next: the last event returned when the page is full, else the stream's last seq. */
  next_since: number;
  /** Events after `since` that are no longer kept. */
  dropped: number;
}

export type EventListener = (e: SessionEvent) => void;

export interface EventSink {
  append(sessionId: string, event: string, data?: Record<string, unknown>, extra?: AppendExtra): SessionEvent;
  eventsFor(sessionId: string, sinceSeq?: number): SessionEvent[];
  read(sessionId: string, q?: EventQuery): EventPage;
  /** Calls `fn` with every event appended to the session from now on, until the returned function is called. */
  subscribe(sessionId: string, fn: EventListener): () => void;
  /** The highest source seq recorded from stream `key` in these sessions' logs (0: none). */
  lastSourceSeq(key: string, sessionIds: readonly string[]): number;
  close(): void;
}

export function matchesTypes(event: string, types: readonly string[] | undefined): boolean {
  if (!types?.length) return true;
  return types.some((t) => event === t || event.startsWith(`${t}.`));
}

/** A page of `events` (seq order, consecutive) after `since`. */
export function pageOf(events: readonly SessionEvent[], lastSeq: number, q: EventQuery = {}): EventPage {
  const since = q.since ?? 0;
  const limit = q.limit ?? Number.POSITIVE_INFINITY;
  const firstKept = events[0]?.seq ?? lastSeq + 1;
  const dropped = Math.max(0, Math.min(firstKept, lastSeq + 1) - 1 - since);
  const out: SessionEvent[] = [];
  for (const e of events) {
    if (e.seq <= since || !matchesTypes(e.event, q.types)) continue;
    out.push(e);
    if (out.length === limit) return { events: out, next_since: e.seq, dropped };
  }
  return { events: out, next_since: Math.max(since, lastSeq), dropped };
}

/** Listeners per session, shared by the implementations. */
export class EventListeners {
  private readonly bySession = new Map<string, Set<EventListener>>();

  add(sessionId: string, fn: EventListener): () => void {
    let set = this.bySession.get(sessionId);
    if (!set) this.bySession.set(sessionId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.bySession.get(sessionId) === set) this.bySession.delete(sessionId);
    };
  }

  notify(sessionId: string, e: SessionEvent): void {
    for (const fn of [...(this.bySession.get(sessionId) ?? [])]) fn(e);
  }
}

interface SessionLog {
  lastSeq: number;
  events: (SessionEvent & { source?: EventSource })[];
}

export class MemoryEventLog implements EventSink {
  private readonly logs = new Map<string, SessionLog>();
  private readonly listeners = new EventListeners();

  constructor(
    private readonly perSession = 1000,
    private readonly maxSessions = 200,
  ) {}

  append(sessionId: string, event: string, data: Record<string, unknown> = {}, extra: AppendExtra = {}): SessionEvent {
    let log = this.logs.get(sessionId);
    if (!log) {
      log = { lastSeq: 0, events: [] };
      this.logs.set(sessionId, log);
      // Maps iterate in insertion order: the first key is the session logged least recently created.
      while (this.logs.size > this.maxSessions) this.logs.delete(this.logs.keys().next().value!);
    }
    const entry: SessionEvent = { seq: ++log.lastSeq, ts: new Date().toISOString(), event, data };
    if (extra.count !== undefined && extra.count > 1) entry.count = extra.count;
    log.events.push(extra.source ? { ...entry, source: extra.source } : entry);
    if (log.events.length > this.perSession) log.events.splice(0, log.events.length - this.perSession);
    this.listeners.notify(sessionId, entry);
    return entry;
  }

  /** Events with seq greater than `sinceSeq`, oldest first. */
  eventsFor(sessionId: string, sinceSeq = 0): SessionEvent[] {
    return this.read(sessionId, { since: sinceSeq }).events;
  }

  read(sessionId: string, q: EventQuery = {}): EventPage {
    const log = this.logs.get(sessionId);
    const events = (log?.events ?? []).map(({ source: _, ...e }) => e);
    return pageOf(events, log?.lastSeq ?? 0, q);
  }

  subscribe(sessionId: string, fn: EventListener): () => void {
    return this.listeners.add(sessionId, fn);
  }

  lastSourceSeq(key: string, sessionIds: readonly string[]): number {
    let max = 0;
    for (const id of sessionIds) {
      for (const e of this.logs.get(id)?.events ?? []) if (e.source?.key === key && e.source.seq > max) max = e.source.seq;
    }
    return max;
  }

  close(): void {}
}
