/**
 * The extension's outgoing events, numbered only for acknowledgement: an event gets its `seq` when it is sent, stays
 * in `sent` until the daemon acknowledges it (system.ack, cumulative), and is resent after a reconnect. Events
 * emitted while no daemon listens wait unnumbered in `queued`. The whole state is small and plain (it lives in
 * chrome.storage.session, so a stopped worker keeps it), and bounded: past `max` events the oldest are dropped,
 * counted per session with the time they span, and reported as `events.lost` (takeLost) with the next sending.
 * Pure (no chrome.*), unit-tested.
 */
export interface Numbered {
  seq: number;
  event: string;
  payload: unknown;
  /** When it was emitted (ms since the epoch). */
  at?: number;
}

interface Held {
  event: string;
  payload: unknown;
  at?: number;
}

/** What the bound dropped of one session's events. */
export interface Lost {
  count: number;
  /** ms since the epoch: the oldest and newest dropped event's emission */
  from: number;
  to: number;
}

export interface QueueState {
  /** New each browser run (storage.session is empty then): the daemon de-duplicates per stream. */
  stream: string;
  /** The next seq to give. */
  next: number;
  sent: Numbered[];
  queued: Held[];
  /** Events dropped to the bound since the stream began. */
  dropped: number;
  /** Dropped and not yet reported, per session id. */
  lost?: Record<string, Lost>;
}

export const MAX_KEPT = 1000;

export function freshState(stream: string): QueueState {
  return { stream, next: 1, sent: [], queued: [], dropped: 0 };
}

export function isQueueState(v: unknown): v is QueueState {
  const s = v as QueueState;
  return !!s && typeof s.stream === "string" && Number.isInteger(s.next) && Array.isArray(s.sent) && Array.isArray(s.queued);
}

export class EventQueue {
  constructor(
    readonly state: QueueState,
    private readonly max = MAX_KEPT,
  ) {}

  /** Keep an event for later (no daemon listening). */
  hold(event: string, payload: unknown, at = Date.now()): void {
    this.state.queued.push({ event, payload, at });
    this.bound();
  }

  /** Number an event for sending now; it is kept until acknowledged. */
  number(event: string, payload: unknown, at = Date.now()): Numbered {
    const n = { seq: this.state.next++, event, payload, at };
    this.state.sent.push(n);
    this.bound();
    return n;
  }

  /**
   * A handshake: the daemon already recorded everything up to `acked`. Returns what to send now, in order: the
   * unacknowledged events again (same seqs), then the held ones, numbered after anything the daemon has seen.
   */
  resume(acked: number): Numbered[] {
    this.ack(acked);
    this.state.next = Math.max(this.state.next, acked + 1);
    const held = this.state.queued.splice(0);
    for (const e of held) this.state.sent.push({ seq: this.state.next++, event: e.event, payload: e.payload, at: e.at });
    return [...this.state.sent];
  }

  /** Forget every event up to `seq`; false when nothing changed. */
  ack(seq: number): boolean {
    const before = this.state.sent.length;
    this.state.sent = this.state.sent.filter((e) => e.seq > seq);
    return this.state.sent.length !== before;
  }

  /** What was dropped since the last call, per session (then forgotten: the caller reports it). */
  takeLost(): Record<string, Lost> {
    const lost = this.state.lost ?? {};
    delete this.state.lost;
    return lost;
  }

  private bound(): void {
    let over = this.state.sent.length + this.state.queued.length - this.max;
    if (over <= 0) return;
    this.state.dropped += over;
    const fromSent = Math.min(over, this.state.sent.length);
    const gone: Held[] = this.state.sent.splice(0, fromSent);
    over -= fromSent;
    if (over > 0) gone.push(...this.state.queued.splice(0, over));
    for (const e of gone) this.countLost(e);
  }

  private countLost(e: Held): void {
    const session = (e.payload as { session_id?: unknown } | null)?.session_id;
    if (typeof session !== "string") return;
    const at = e.at ?? Date.now();
    const lost = (this.state.lost ??= {});
    const l = lost[session];
    if (l) lost[session] = { count: l.count + 1, from: Math.min(l.from, at), to: Math.max(l.to, at) };
    else lost[session] = { count: 1, from: at, to: at };
  }
}
