/**
 * Events to the daemon. Each is numbered when sent and kept in chrome.storage.session (so a stopped worker keeps
 * it) until the daemon acknowledges it (system.ack); after the next handshake the unacknowledged ones are resent and
 * those emitted while no daemon listened follow (events/queue.ts). Bursts of one kind per tab go through
 * `emitBurst`, coalesced in short windows (events/coalesce.ts). Heartbeats are neither numbered nor kept.
 */
import { browser } from "wxt/browser";
import type { z } from "zod";
import type { EVENTS, EventName } from "../../protocol/events.ts";
import { Coalescer } from "./events/coalesce.ts";
import { EventQueue, freshState, isQueueState, type Numbered } from "./events/queue.ts";

export type EventPayload<E extends EventName> = z.input<ReturnType<(typeof EVENTS)[E]>>;
/** Sends one frame on the live socket. */
type Sink = (frame: { event: string; payload: unknown; seq?: number }) => void;

const STORAGE_KEY = "outbox";

let sink: Sink | null = null;
/** Which setSink call is current. */
let sinkToken = 0;
let queue: EventQueue | null = null;
/** Emitted before the stored queue was read back: added to it once it is. */
const early: { event: string; payload: unknown }[] = [];
let loading: Promise<EventQueue> | null = null;

const coalescer = new Coalescer((event, payload) => send(event, payload));

function loadQueue(): Promise<EventQueue> {
  loading ??= (async () => {
    const got = await browser.storage.session.get(STORAGE_KEY).catch(() => ({}) as Record<string, unknown>);
    const stored = (got as Record<string, unknown>)[STORAGE_KEY];
    const stream = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
    queue = new EventQueue(isQueueState(stored) ? stored : freshState(stream));
    for (const e of early.splice(0)) queue.hold(e.event, e.payload);
    persist();
    return queue;
  })();
  return loading;
}

let persistQueued = false;
function persist(): void {
  if (persistQueued || !queue) return;
  persistQueued = true;
  queueMicrotask(() => {
    persistQueued = false;
    browser.storage.session.set({ [STORAGE_KEY]: queue!.state }).catch((err: unknown) => console.warn("bsk: could not keep events", err));
  });
}

function toFrame(n: Numbered) {
  return { event: n.event, payload: n.payload, seq: n.seq };
}

function send(event: string, payload: unknown): void {
  if (!queue) {
    early.push({ event, payload });
    void loadQueue();
    return;
  }
  if (sink) sink(toFrame(queue.number(event, payload)));
  else queue.hold(event, payload);
  persist();
}

export function emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
  if (event === "system.heartbeat") {
    sink?.({ event, payload });
    return;
  }
  // A burst that began earlier goes out first, so events stay in the order they happened.
  coalescer.flush();
  send(event, payload);
}

/** An event that may come in bursts: one per `where` (e.g. the tab id) and kind per window, with a count. */
export function emitBurst<E extends EventName>(event: E, where: string | number, payload: EventPayload<E>): void {
  coalescer.push(`${event}:${where}`, event, payload as Record<string, unknown>);
}

/** This browser run's event stream id (sent in the handshake). */
export async function outboxStream(): Promise<string> {
  return (await loadQueue()).state.stream;
}

/**
 * Called by the connection: after a handshake, with the daemon's events_acked (what it already recorded of this
 * stream), to resend the rest and send from now on; null when the socket is gone.
 */
export function setSink(next: Sink | null, acked = 0): void {
  sink = null;
  const token = ++sinkToken;
  if (!next) return;
  void loadQueue().then((q) => {
    if (token !== sinkToken) return; // another socket took over meanwhile
    sink = next;
    for (const n of q.resume(acked)) next(toFrame(n));
    persist();
  });
}

/** system.ack from the daemon: forget what it recorded. Ignored while no handshaken socket is live. */
export function onAck(seq: number): void {
  if (sink && queue && Number.isInteger(seq) && queue.ack(seq)) persist();
}
