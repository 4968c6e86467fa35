/**
 * Each session's ordered event log with daemon-owned sequence numbers (what `--since` reads):
 * session start/end, adoption, navigations, tabs opened and closed. Bounded per session and in the
 * number of sessions kept; in memory for now, behind an interface a persistent log can implement.
 */
export interface SessionEvent {
  seq: number;
  ts: string;
  event: string;
  data: Record<string, unknown>;
}

export interface EventSink {
  append(sessionId: string, event: string, data?: Record<string, unknown>): SessionEvent;
  eventsFor(sessionId: string, sinceSeq?: number): SessionEvent[];
}

interface SessionLog {
  lastSeq: number;
  events: SessionEvent[];
}

export class MemoryEventLog implements EventSink {
  private readonly logs = new Map<string, SessionLog>();

  constructor(
    private readonly perSession = 1000,
    private readonly maxSessions = 200,
  ) {}

  append(sessionId: string, event: string, data: Record<string, unknown> = {}): SessionEvent {
    let log = this.logs.get(sessionId);
    if (!log) {
      log = { lastSeq: 0, events: [] };
      this.logs.set(sessionId, log);
      // Maps iterate in insertion order: the first key is the session logged least recently created.
      while (this.logs.size > this.maxSessions) this.logs.delete(this.logs.keys().next().value!);
    }
    const entry: SessionEvent = { seq: ++log.lastSeq, ts: new Date().toISOString(), event, data };
    log.events.push(entry);
    if (log.events.length > this.perSession) log.events.splice(0, log.events.length - this.perSession);
    return entry;
  }

  /** Events with seq greater than `sinceSeq`, oldest first. */
  eventsFor(sessionId: string, sinceSeq = 0): SessionEvent[] {
    const events = this.logs.get(sessionId)?.events ?? [];
    // Seqs are consecutive within what is kept, so the start index is arithmetic.
    const first = events[0]?.seq ?? 0;
    return events.slice(Math.max(0, sinceSeq + 1 - first));
  }
}
