/**
 * Events to the daemons, one numbered stream per link (`LinkId`: the local daemon, the remote server). A session's
 * events go to the stream of the link that owns it (the router the link floor installs; without one, all are the
 * local daemon's). Each is numbered when sent and kept in chrome.storage.session (its link's own key, so a stopped
 * worker keeps it) until that daemon acknowledges it (system.ack); after the link's next handshake the
 * unacknowledged ones are resent and those emitted while it was down follow (queue.ts). Each stream has its own
 * bound: what it dropped goes out as `events.lost` with its next sending. Bursts of one kind per tab go through
 * `emitBurst`, coalesced in short windows (coalesce.ts); what a window has folded is kept alongside, so a worker
 * stopped mid-window sends it when it wakes. A stream dropped (`dropStream`: its link was forgotten) starts afresh.
 *
 * An event reaches its socket only once the write that keeps it (and the console marks that go with it) is done: a
 * worker stopped between a send and its write would come back with a queue and marks older than what the daemon has,
 * number new events again with seqs the daemon already holds (it drops them as duplicates) and report the page's
 * console messages a second time. A reply waits for the events its call emitted (`eventsHandedOver`).
 */
import { browser } from "wxt/browser";
import type { z } from "zod";
import type { EVENTS, EventName } from "../../../protocol/events.ts";
import { Coalescer } from "./coalesce.ts";
import { EventQueue, freshState, isQueueState, type Numbered } from "./queue.ts";

export type EventPayload<E extends EventName> = z.input<ReturnType<(typeof EVENTS)[E]>>;
type Frame = { event: string; payload: unknown; seq?: number };
/** Sends one frame on a live socket. */
export type Sink = (frame: Frame) => void;
/** Which daemon a stream goes to: the local one, or the remote server (one grant at a time). */
export type LinkId = "local" | "remote";
/** Which link owns a session's events; undefined while the session is not known (not loaded yet, or gone). */
export type EventRouter = (sessionId: string) => LinkId | undefined;

const streamKey = (link: LinkId) => `outbox:${link}`;
/** The coalescer's folded events, written together with the queues. */
const FOLDED_KEY = "outbox_folded";
/** Per tab, the page time of the last console message reported (or when capture began), written with the queues. */
const MARKS_KEY = "outbox_marks";

/** One link's stream: its sink (when up) and its queue, kept in storage.session. */
interface Stream {
  sink: Sink | null;
  /** Which setSink call is current. */
  sinkToken: number;
  queue: EventQueue | null;
  /** Numbered for a sink (its setSink token), waiting for the next write to keep them. */
  unsent: { token: number; frame: Frame }[];
}

/** The outbox's state: the streams, the router, the marks, and what came before the streams were read back. */
interface OutboxState {
  streams: Record<LinkId, Stream>;
  router: EventRouter;
  /** Resolves once the router can place sessions (the sessions are loaded). */
  routerReady: Promise<unknown>;
  marks: Record<string, number>;
  /**
   * Emitted before the stored streams were read back: placed once they are, on the link named when emitted if the
   * router knew the session then (a session ended as the worker starts is forgotten by the time they are placed).
   */
  early: { event: string; payload: unknown; at: number; link: LinkId | undefined }[];
  loading: Promise<void> | null;
  persistQueued: boolean;
  /** The storage write out now (settled when none is): the next write waits for it. */
  writing: Promise<void>;
  /** Frames given to deliver() so far, and of those handed to a socket (or left to a newer socket's resend). */
  frames: { given: number; done: number };
  /** Woken as frames are done: [the count each waits for, its resolve]. */
  waiters: [number, () => void][];
}

const LINKS: readonly LinkId[] = ["local", "remote"];
const newStream = (): Stream => ({ sink: null, sinkToken: 0, queue: null, unsent: [] });
const outboxState: OutboxState = {
  streams: { local: newStream(), remote: newStream() },
  router: () => undefined,
  routerReady: Promise.resolve(),
  marks: {},
  early: [],
  loading: null,
  persistQueued: false,
  writing: Promise.resolve(),
  frames: { given: 0, done: 0 },
  waiters: [],
};

/** Installed by the link floor: which link owns a session; `ready` resolves once it can tell. */
export function setEventRouter(next: EventRouter, ready: Promise<unknown> = Promise.resolve()): void {
  outboxState.router = next;
  outboxState.routerReady = ready;
}

/** The link of the event's session, if the router knows it now. */
function routeOf(payload: unknown): LinkId | undefined {
  const sessionId = (payload as { session_id?: unknown } | null)?.session_id;
  return typeof sessionId === "string" ? outboxState.router(sessionId) : undefined;
}

function linkOf(payload: unknown): LinkId {
  return routeOf(payload) ?? "local";
}

const coalescer = new Coalescer((event, payload) => send(event, payload));

function randomStreamId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads back every stream's queue, the marks and what a predecessor had folded, once per worker. */
function load(): Promise<void> {
  outboxState.loading ??= (async () => {
    const keys = [...LINKS.map(streamKey), FOLDED_KEY, MARKS_KEY];
    const got = (await browser.storage.session.get(keys).catch(() => ({}))) as Record<string, unknown>;
    const storedMarks = got[MARKS_KEY];
    if (storedMarks && typeof storedMarks === "object")
      outboxState.marks = { ...(storedMarks as Record<string, number>), ...outboxState.marks };
    await outboxState.routerReady;
    for (const link of LINKS) {
      const stored = got[streamKey(link)];
      outboxState.streams[link].queue = new EventQueue(isQueueState(stored) ? stored : freshState(randomStreamId()));
    }
    // A predecessor stopped while bursts were folding: what it folded happened before anything this worker saw.
    const folded = got[FOLDED_KEY];
    if (Array.isArray(folded)) for (const e of folded as { event: string; payload: unknown }[]) queueOf(e.payload).hold(e.event, e.payload);
    for (const e of outboxState.early.splice(0)) outboxState.streams[e.link ?? linkOf(e.payload)].queue!.hold(e.event, e.payload, e.at);
    persist();
  })();
  return outboxState.loading;
}

/** The queue of the link that owns the event (only once loaded). */
function queueOf(payload: unknown): EventQueue {
  return outboxState.streams[linkOf(payload)].queue!;
}

async function loadedQueue(link: LinkId): Promise<EventQueue> {
  await load();
  return outboxState.streams[link].queue!;
}

/**
 * One write at a time: what changes while a write is out goes into the next one, so a page flooding events costs one
 * write per storage round trip, not one per event (a backlog of writes would hold every reply behind its events).
 */
function persist(): void {
  if (outboxState.persistQueued || !outboxState.streams.local.queue) return;
  outboxState.persistQueued = true;
  outboxState.writing = outboxState.writing.then(writeKept);
}

async function writeKept(): Promise<void> {
  outboxState.persistQueued = false;
  const kept: Record<string, unknown> = { [FOLDED_KEY]: coalescer.pending(), [MARKS_KEY]: outboxState.marks };
  for (const [link, s] of Object.entries(outboxState.streams)) if (s.queue) kept[streamKey(link as LinkId)] = s.queue.state;
  const batches = Object.values(outboxState.streams)
    .filter((s) => s.unsent.length)
    .map((s) => ({ s, frames: s.unsent.splice(0) }));
  await browser.storage.session.set(kept).catch((err: unknown) => console.warn("bsk: could not keep events", err));
  // Writes end in the order they were made, so frames go out in the order they were numbered. A socket replaced
  // meanwhile gets them from its own resend (setSink), never twice from here.
  for (const { s, frames } of batches) {
    for (const { token, frame } of frames) if (s.sink && s.sinkToken === token) s.sink(frame);
    framesDone(frames.length);
  }
}

/** Hands `frame` to the stream's socket once kept (see the module comment). */
function deliver(s: Stream, frame: Frame): void {
  s.unsent.push({ token: s.sinkToken, frame });
  outboxState.frames.given++;
  persist();
}

function framesDone(n: number): void {
  outboxState.frames.done += n;
  const done = outboxState.frames.done;
  const woken = outboxState.waiters.filter(([upTo]) => upTo <= done);
  outboxState.waiters = outboxState.waiters.filter(([upTo]) => upTo > done);
  for (const [, resolve] of woken) resolve();
}

/** Resolves once every event emitted until now for a live socket has been handed to it (a reply follows its events). */
export function eventsHandedOver(): Promise<void> {
  const upTo = outboxState.frames.given;
  if (outboxState.frames.done >= upTo) return Promise.resolve();
  return new Promise((resolve) => outboxState.waiters.push([upTo, resolve]));
}

function toFrame(n: Numbered) {
  return { event: n.event, payload: n.payload, seq: n.seq };
}

function send(event: string, payload: unknown): void {
  if (!outboxState.streams.local.queue) {
    outboxState.early.push({ event, payload, at: Date.now(), link: routeOf(payload) });
    void load();
    return;
  }
  const s = outboxState.streams[linkOf(payload)];
  const q = s.queue!;
  if (s.sink) {
    deliver(s, toFrame(q.number(event, payload)));
    sendLost(s);
  } else q.hold(event, payload);
  persist();
}

/** What the queue's bound dropped, as one `events.lost` per session. */
function sendLost(s: Stream): void {
  const q = s.queue!;
  for (const [session_id, l] of Object.entries(q.takeLost())) {
    const payload: EventPayload<"events.lost"> = {
      session_id,
      count: l.count,
      from: new Date(l.from).toISOString(),
      to: new Date(l.to).toISOString(),
      reason: "outbox_full",
    };
    deliver(s, toFrame(q.number("events.lost", payload)));
  }
}

export function emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
  // A burst that began earlier goes out first, so events stay in the order they happened.
  coalescer.flush();
  send(event, payload);
}

/** An event that may come in bursts: one per `where` (e.g. the tab id) and kind per window, with a count. */
export function emitBurst<E extends EventName>(event: E, where: string | number, payload: EventPayload<E>): void {
  coalescer.push(`${event}:${where}`, event, payload as Record<string, unknown>);
  persist();
}

/** The link's event stream id (sent in its handshake): new each browser run, and after the stream was dropped. */
export async function outboxStream(link: LinkId): Promise<string> {
  return (await loadedQueue(link)).state.stream;
}

/**
 * Called by a link: after its handshake, with the daemon's events_acked (what it already recorded of this stream),
 * to resend the rest and send from now on; null when the socket is gone.
 */
export function setSink(link: LinkId, next: Sink | null, acked = 0): void {
  const s = outboxState.streams[link];
  s.sink = null;
  const token = ++s.sinkToken;
  if (!next) return;
  void load().then(() => {
    if (token !== s.sinkToken || !s.queue) return; // another socket took over meanwhile
    s.sink = next;
    for (const n of s.queue.resume(acked)) deliver(s, toFrame(n));
    sendLost(s);
    persist();
  });
}

/** system.ack from the link's daemon: forget what it recorded. Ignored while the link has no handshaken socket. */
export function onAck(link: LinkId, seq: number): void {
  const s = outboxState.streams[link];
  if (s.sink && s.queue && Number.isInteger(seq) && s.queue.ack(seq)) persist();
}

/** The link was forgotten (its grant dropped): its kept events go, and its next handshake starts a new stream. */
export async function dropStream(link: LinkId): Promise<void> {
  const s = outboxState.streams[link];
  await load();
  s.sink = null;
  s.sinkToken++;
  s.queue = new EventQueue(freshState(randomStreamId()));
  persist();
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
  await load();
  return outboxState.marks[tabId];
}

export function forgetMark(tabId: number): void {
  if (!(tabId in outboxState.marks)) return;
  delete outboxState.marks[tabId];
  persist();
}
