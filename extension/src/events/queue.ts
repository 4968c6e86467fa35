/**
 * The extension's outgoing events, numbered only for acknowledgement: an event gets its `seq` when it is sent, stays
 * in `sent` until the daemon acknowledges it (system.ack, cumulative), and is resent after a reconnect. Events
 * emitted while no daemon listens wait unnumbered in `queued`. The whole state is small and plain (it lives in
 * chrome.storage.session, so a stopped worker keeps it), and bounded: past `max` events the oldest are dropped and
 * counted. Pure (no chrome.*), unit-tested.
 */
export interface Numbered {
  seq: number;
  event: string;
  payload: unknown;
}

export interface QueueState {
  /** New each browser run (storage.session is empty then): the daemon de-duplicates per stream. */
  stream: string;
  /** The next seq to give. */
  next: number;
  sent: Numbered[];
  queued: { event: string; payload: unknown }[];
  /** Events dropped to the bound since the stream began. */
  dropped: number;
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
  hold(event: string, payload: unknown): void {
    this.state.queued.push({ event, payload });
    this.bound();
  }

  /** Number an event for sending now; it is kept until acknowledged. */
  number(event: string, payload: unknown): Numbered {
    const n = { seq: this.state.next++, event, payload };
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
    for (const e of held) this.state.sent.push({ seq: this.state.next++, event: e.event, payload: e.payload });
    return [...this.state.sent];
  }

  /** Forget every event up to `seq`; false when nothing changed. */
  ack(seq: number): boolean {
    const before = this.state.sent.length;
    this.state.sent = this.state.sent.filter((e) => e.seq > seq);
    return this.state.sent.length !== before;
  }

  private bound(): void {
    let over = this.state.sent.length + this.state.queued.length - this.max;
    if (over <= 0) return;
    this.state.dropped += over;
    const fromSent = Math.min(over, this.state.sent.length);
    this.state.sent.splice(0, fromSent);
    over -= fromSent;
    if (over > 0) this.state.queued.splice(0, over);
  }
}
