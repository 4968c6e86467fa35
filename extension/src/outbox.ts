/**
 * Events to the daemon. Sent at once while a handshaken socket is open; otherwise kept (bounded) and sent after
 * the next handshake, so a window the person closed while the daemon was away is still reported.
 */
import type { z } from "zod";
import type { EVENTS, EventName } from "../../protocol/events.ts";

export type EventPayload<E extends EventName> = z.input<ReturnType<(typeof EVENTS)[E]>>;
type Sink = (event: string, payload: unknown) => void;

const MAX_QUEUED = 200;
const queued: { event: string; payload: unknown }[] = [];
let sink: Sink | null = null;

export function emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
  if (sink) return sink(event, payload);
  if (event === "system.heartbeat") return;
  if (queued.length >= MAX_QUEUED) queued.shift();
  queued.push({ event, payload });
}

/** Called by the connection: a sink once the handshake succeeded, null when the socket is gone. */
export function setSink(next: Sink | null): void {
  sink = next;
  if (!next) return;
  for (const e of queued.splice(0)) next(e.event, e.payload);
}
