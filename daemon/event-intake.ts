/**
 * Events from an extension arrive numbered (frame `seq`) within the extension's stream (handshake `event_stream`,
 * new each browser run). The daemon records each one once: a seq at or below the highest it recorded from that
 * stream is a resend after a reconnect and is dropped. Recorded (or dropped) events are acknowledged cumulatively
 * with `system.ack {seq}`, batched per turn of the event loop. After a daemon restart the highest recorded seq is
 * read back from the browser's session streams on disk (each extension event keeps its source), and the handshake
 * tells the extension, which then resends only what came later.
 */
import type { BrowserConn } from "./browsers.ts";
import type { EventSink, EventSource } from "./event-log.ts";

interface StreamState {
  key: string;
  /** Highest seq recorded from this stream. */
  recorded: number;
  /** Highest seq to acknowledge on the next flush (0: nothing pending). */
  pendingAck: number;
}

export type Intake = { kind: "fresh"; source?: EventSource } | { kind: "duplicate" };

export class EventIntake {
  /** Highest recorded seq per stream key, for the daemon's life (a reconnect on a new link keeps it). */
  private readonly recorded = new Map<string, number>();
  private readonly links = new WeakMap<BrowserConn, StreamState>();

  constructor(private readonly events: EventSink) {}

  /** A handshake: the link's stream, and what of it is already recorded (answered as `events_acked`). */
  open(conn: BrowserConn, stream: string | undefined, sessionIds: readonly string[]): number {
    if (!stream) return 0;
    const key = `${conn.instanceId}:${stream}`;
    let recorded = this.recorded.get(key);
    if (recorded === undefined) {
      recorded = this.events.lastSourceSeq(key, sessionIds);
      this.recorded.set(key, recorded);
    }
    this.links.set(conn, { key, recorded, pendingAck: 0 });
    return recorded;
  }

  /** An event frame: fresh (with its source, to record alongside it) or a duplicate; unnumbered ones are fresh. */
  accept(conn: BrowserConn, seq: number | undefined): Intake {
    const s = this.links.get(conn);
    if (seq === undefined || !s) return { kind: "fresh" };
    if (seq <= s.recorded) return { kind: "duplicate" };
    s.recorded = seq;
    this.recorded.set(s.key, Math.max(this.recorded.get(s.key) ?? 0, seq));
    return { kind: "fresh", source: { key: s.key, seq } };
  }

  /** Acknowledge everything up to `seq` on this link (sent once per turn of the event loop). */
  ack(conn: BrowserConn, seq: number | undefined): void {
    const s = this.links.get(conn);
    if (seq === undefined || !s) return;
    const first = s.pendingAck === 0;
    s.pendingAck = Math.max(s.pendingAck, seq);
    if (!first) return;
    setTimeout(() => {
      const upTo = s.pendingAck;
      s.pendingAck = 0;
      conn.send({ event: "system.ack", payload: { seq: upTo } });
    }, 0);
  }
}

const intakes = new WeakMap<EventSink, EventIntake>();

/** One intake per daemon (per event log). */
export function eventIntake(events: EventSink): EventIntake {
  let intake = intakes.get(events);
  if (!intake) intakes.set(events, (intake = new EventIntake(events)));
  return intake;
}
