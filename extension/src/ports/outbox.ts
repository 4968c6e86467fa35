/**
 * Events to the daemon. Each is numbered when sent and kept in chrome.storage.session (so a stopped worker keeps
 * it) until the daemon acknowledges it (system.ack); after the next handshake the unacknowledged ones are resent and
 * those emitted while no daemon listened follow (events/queue.ts). Bursts of one kind per tab go through
 * `emitBurst`, coalesced in short windows (events/coalesce.ts); what a window has folded is kept alongside, so a
 * worker stopped mid-window sends it when it wakes. What the bound dropped goes out as `events.lost` with the next
 * sending. Heartbeats are neither numbered nor kept.
 */
import { browser } from "wxt/browser";
import type { z } from "zod";
import type { EVENTS, EventName } from "../../../protocol/events.ts";
import { Coalescer } from "./coalesce.ts";
import { EventQueue, freshState, isQueueState, type Numbered } from "./queue.ts";

export type EventPayload<E extends EventName> = z.input<ReturnType<(typeof EVENTS)[E]>>;
/** Sends one frame on the live socket. */
export type Sink = (frame: { event: string; payload: unknown; seq?: number }) => void;

const STORAGE_KEY = "outbox";
/** The coalescer's folded events, written together with the queue. */
const FOLDED_KEY = "outbox_folded";
/** Per tab, the page time of the last console message reported (or when capture began), written with the queue. */
const MARKS_KEY = "outbox_marks";

/** The outbox's state: the daemon's link (when up), the queue kept in storage.session, what came before it loaded. */
interface OutboxState {
  marks: Record<string, number>;
  sink: Sink | null;
  /** Which setSink call is current. */
  sinkToken: number;
  queue: EventQueue | null;
  /** Emitted before the stored queue was read back: added to it once it is. */
  early: { event: string; payload: unknown; at: number }[];
  loading: Promise<EventQueue> | null;
  persistQueued: boolean;
}
const outboxState: OutboxState = {
  marks: {},
  sink: null,
  sinkToken: 0,
  queue: null,
  early: [],
  loading: null,
  persistQueued: false,
};

/**
 * Events of a session another link owns (the remote link, link/remote/): the router gives that link's sink, or null
 * while it is down; undefined means the session is the local daemon's and the event takes the numbered stream.
 * Remote events go unnumbered (the daemon takes them as fresh) and are not kept while the remote link is down.
 */
export type EventRouter = (sessionId: string) => Sink | null | undefined;
let router: EventRouter | null = null;

export function setEventRouter(next: EventRouter | null): void {
  router = next;
}

function routed(event: string, payload: unknown): boolean {
  const sessionId = (payload as { session_id?: unknown } | null)?.session_id;
  if (!router || typeof sessionId !== "string") return false;
  const sink = router(sessionId);
  if (sink === undefined) return false;
  sink?.({ event, payload });
  return true;
}

const coalescer = new Coalescer((event, payload) => send(event, payload));

function loadQueue(): Promise<EventQueue> {
  outboxState.loading ??= (async () => {
    const got = await browser.storage.session.get([STORAGE_KEY, FOLDED_KEY, MARKS_KEY]).catch(() => ({}) as Record<string, unknown>);
    const stored = (got as Record<string, unknown>)[STORAGE_KEY];
    const folded = (got as Record<string, unknown>)[FOLDED_KEY];
    const storedMarks = (got as Record<string, unknown>)[MARKS_KEY];
    if (storedMarks && typeof storedMarks === "object")
      outboxState.marks = { ...(storedMarks as Record<string, number>), ...outboxState.marks };
    const stream = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
    outboxState.queue = new EventQueue(isQueueState(stored) ? stored : freshState(stream));
    // A predecessor stopped while bursts were folding: what it folded happened before anything this worker saw.
    if (Array.isArray(folded)) for (const e of folded as { event: string; payload: unknown }[]) outboxState.queue.hold(e.event, e.payload);
    for (const e of outboxState.early.splice(0)) outboxState.queue.hold(e.event, e.payload, e.at);
    persist();
    return outboxState.queue;
  })();
  return outboxState.loading;
}

function persist(): void {
  if (outboxState.persistQueued || !outboxState.queue) return;
  outboxState.persistQueued = true;
  queueMicrotask(() => {
    outboxState.persistQueued = false;
    browser.storage.session
      .set({ [STORAGE_KEY]: outboxState.queue!.state, [FOLDED_KEY]: coalescer.pending(), [MARKS_KEY]: outboxState.marks })
      .catch((err: unknown) => console.warn("bsk: could not keep events", err));
  });
}

function toFrame(n: Numbered) {
  return { event: n.event, payload: n.payload, seq: n.seq };
}

function send(event: string, payload: unknown): void {
  if (routed(event, payload)) return;
  if (!outboxState.queue) {
    outboxState.early.push({ event, payload, at: Date.now() });
    void loadQueue();
    return;
  }
  if (outboxState.sink) {
    outboxState.sink(toFrame(outboxState.queue.number(event, payload)));
    sendLost(outboxState.queue, outboxState.sink);
  } else outboxState.queue.hold(event, payload);
  persist();
}

/** What the queue's bound dropped, as one `events.lost` per session. */
function sendLost(q: EventQueue, out: Sink): void {
  for (const [session_id, l] of Object.entries(q.takeLost())) {
    const payload: EventPayload<"events.lost"> = {
      session_id,
      count: l.count,
      from: new Date(l.from).toISOString(),
      to: new Date(l.to).toISOString(),
      reason: "outbox_full",
    };
    out(toFrame(q.number("events.lost", payload)));
  }
}

export function emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
  if (event === "system.heartbeat") {
    outboxState.sink?.({ event, payload });
    return;
  }
  // A burst that began earlier goes out first, so events stay in the order they happened.
  coalescer.flush();
  send(event, payload);
}

/** An event that may come in bursts: one per `where` (e.g. the tab id) and kind per window, with a count. */
export function emitBurst<E extends EventName>(event: E, where: string | number, payload: EventPayload<E>): void {
  coalescer.push(`${event}:${where}`, event, payload as Record<string, unknown>);
  persist();
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
  outboxState.sink = null;
  const token = ++outboxState.sinkToken;
  if (!next) return;
  void loadQueue().then((q) => {
    if (token !== outboxState.sinkToken) return; // another socket took over meanwhile
    outboxState.sink = next;
    for (const n of q.resume(acked)) next(toFrame(n));
    sendLost(q, next);
    persist();
  });
}

/** system.ack from the daemon: forget what it recorded. Ignored while no handshaken socket is live. */
export function onAck(seq: number): void {
  if (outboxState.sink && outboxState.queue && Number.isInteger(seq) && outboxState.queue.ack(seq)) persist();
}

/**
 * The tab's console messages up to page time `ts` are in the stream (or were left out on purpose): kept with the
 * events, so a worker that starts again knows which of the messages the page replays are new to the stream.
 */
export function markReported(tabId: number, ts: number): void {
  if (ts > (outboxState.marks[tabId] ?? -Infinity)) outboxState.marks[tabId] = ts;
  persist();
}

export async function reportedUpTo(tabId: number): Promise<number | undefined> {
  await loadQueue();
  return outboxState.marks[tabId];
}

export function forgetMark(tabId: number): void {
  if (!(tabId in outboxState.marks)) return;
  delete outboxState.marks[tabId];
  persist();
}
