/**
 * Connected browsers (one per extension instance) and the request/response plumbing to each.
 * The daemon's requests carry its own ids (`x<n>`); a reconnect of the same instance replaces the old
 * connection, and a generation number keeps a late close of the old socket from removing the new one.
 */
import type { ExtensionMethodName, Params, Result } from "../protocol/catalog.ts";
import type { BrowserInfo } from "../protocol/define.ts";
import { BskError, type ErrorBody } from "../protocol/errors.ts";
import { type CallProgress, encodeFrame, OP_DURABLE, type ResponseFrame } from "../protocol/frames.ts";
import type { z } from "zod";

export type BrowserRecord = Omit<z.infer<ReturnType<typeof BrowserInfo>>, "sessions">;

/** What the gateway's socket offers (a narrow slice of ServerWebSocket, so tests can fake it). */
export interface WsLike {
  send(text: string): number;
  close(code?: number, reason?: string): void;
}

export interface ExtensionReply<R = unknown> {
  result?: R;
  error?: ErrorBody;
  /** The extension's own timings (`meta.timings`). */
  timings: Record<string, number>;
  rttMs: number;
}

interface Pending {
  resolve: (r: ExtensionReply) => void;
  reject: (err: unknown) => void;
  sentAt: number;
  cleanup: () => void;
  onProgress?: (p: CallProgress) => void;
}

export interface RequestOptions {
  traceId: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Hears the extension's call.progress about this request. */
  onProgress?: (p: CallProgress) => void;
  /**
   * Sent held (meta.hold): the extension sends no input until this settles and `op.durable` names the request. Only
   * for a connection that `holdsInput`.
   */
  holdUntil?: Promise<void>;
}

export function browserGone(instanceId: string, detail = "the browser disconnected"): BskError {
  return new BskError("cdp_failed", `${detail} (browser ${instanceId}); the reply was lost`, {
    data: { reason: "browser_gone", instance_id: instanceId },
  });
}

const SENT_KEPT = 4096;

/** The n of a request id `x<n>` (n ≥ 1), else undefined. */
function requestNumber(id: string): number | undefined {
  if (id.charCodeAt(0) !== 120 /* x */) return undefined;
  const n = Number(id.slice(1));
  return Number.isSafeInteger(n) && n >= 1 && `x${n}` === id ? n : undefined;
}

export class BrowserConn {
  lastFrameAt = performance.now();
  closed = false;
  private readonly pending = new Map<string, Pending>();
  /**
   * The numbers of the requests this connection was sent (ids are `x<n>`, Browsers.nextRequestId), the newest SENT_KEPT
   * in a ring, to tell a late reply from a stray one. Numbers in a fixed array, not the id strings in a set: the
   * daemon's memory does not climb for its first thousands of requests (the soak saw 4,096 strings retained).
   */
  private readonly sent = new Float64Array(SENT_KEPT);
  private sentNext = 0;

  constructor(
    readonly ws: WsLike,
    readonly record: BrowserRecord,
    readonly generation: number,
    private readonly nextId: () => string,
    /** The extension offered HOLD_INPUT in its handshake. */
    readonly holdsInput = false,
  ) {}

  get instanceId(): string {
    return this.record.instance_id;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** The daemon's own request to the extension, typed by its method; resolves with the answer (result or error). */
  request<M extends ExtensionMethodName>(method: M, params: Params<M>, opts: RequestOptions): Promise<ExtensionReply<Result<M>>> {
    return this.forward(method, params, opts) as Promise<ExtensionReply<Result<M>>>;
  }

  /**
   * A request by its run-time name: a client's call the dispatcher validated (forward.ts). Resolves with the
   * extension's answer (result or error); abort sends `cancel` to the extension.
   */
  forward(method: string, params: unknown, opts: RequestOptions): Promise<ExtensionReply> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.closed) return Promise.reject(browserGone(this.instanceId));
    const id = this.nextId();
    this.remember(id);
    const { promise, resolve, reject } = Promise.withResolvers<ExtensionReply>();
    const onAbort = () => {
      if (!this.pending.delete(id)) return;
      this.sendCancel(id);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    this.pending.set(id, {
      resolve,
      reject,
      sentAt: performance.now(),
      cleanup: () => signal?.removeEventListener("abort", onAbort),
      onProgress: opts.onProgress,
    });
    const hold = this.holdsInput ? opts.holdUntil : undefined;
    const meta = { trace_id: opts.traceId, timeout_ms: Math.max(1, opts.timeoutMs), ...(hold && { hold: true as const }) };
    if (!this.send({ id, method, params, meta })) {
      this.pending.get(id)?.cleanup();
      this.pending.delete(id);
      reject(browserGone(this.instanceId, "could not send to the browser"));
      return promise;
    }
    // Behind the request on the same socket; not once it was answered or cut off (a cancel went out instead).
    hold?.then(
      () => void (this.pending.has(id) && this.send({ event: OP_DURABLE, payload: { request_id: id } })),
      () => undefined,
    );
    return promise;
  }

  /** `request`, throwing the extension's error as a BskError. */
  async call<M extends ExtensionMethodName>(method: M, params: Params<M>, opts: RequestOptions): Promise<Result<M> | undefined> {
    const reply = await this.request(method, params, opts);
    if (reply.error) throw BskError.from(reply.error);
    return reply.result;
  }

  /** Route a response frame to its waiting request; false when nobody waits for that id. */
  handleResponse(frame: ResponseFrame): boolean {
    const id = String(frame.id);
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    p.cleanup();
    const timings = (frame.meta?.timings ?? {}) as Record<string, number>;
    const rttMs = performance.now() - p.sentAt;
    if ("error" in frame) p.resolve({ error: frame.error as ErrorBody, timings, rttMs });
    else p.resolve({ result: frame.result, timings, rttMs });
    return true;
  }

  /** A call.progress from the extension, to whoever waits on that request (dropped once it was answered). */
  handleProgress(p: CallProgress): void {
    this.pending.get(String(p.request_id))?.onProgress?.(p);
  }

  /** Whether a request with this id went out on this connection (recently). */
  wasSent(id: string | number | null): boolean {
    const n = typeof id === "string" ? requestNumber(id) : undefined;
    return n !== undefined && this.sent.includes(n);
  }

  private remember(id: string): void {
    const n = requestNumber(id);
    if (n === undefined) return;
    this.sent[this.sentNext] = n;
    this.sentNext = (this.sentNext + 1) % SENT_KEPT;
  }

  send(frame: object): boolean {
    if (this.closed) return false;
    try {
      return this.ws.send(encodeFrame(frame)) !== 0;
    } catch {
      return false;
    }
  }

  sendCancel(targetId: string): void {
    // The extension answers `{cancelled}`; nobody waits for it.
    const id = this.nextId();
    this.remember(id);
    this.send({ id, method: "cancel", params: { id: targetId } });
  }

  /** The socket is gone: every waiting request fails now rather than hanging until its deadline. */
  markClosed(err: BskError): void {
    this.closed = true;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.cleanup();
      p.reject(err);
    }
  }

  close(code: number, reason: string): void {
    try {
      this.ws.close(code, reason);
    } catch {}
  }
}

export class BrowserRegistry {
  private readonly byInstance = new Map<string, BrowserConn>();
  private readonly listeners = new Set<() => void>();
  private generation = 0;
  private idCounter = 0;
  readonly nextRequestId = () => `x${++this.idCounter}`;

  /** Register a handshaken connection; returns the connection it replaces, if any. */
  add(ws: WsLike, record: BrowserRecord, opts: { holdsInput?: boolean } = {}): { conn: BrowserConn; replaced?: BrowserConn } {
    const conn = new BrowserConn(ws, record, ++this.generation, this.nextRequestId, opts.holdsInput);
    const replaced = this.byInstance.get(record.instance_id);
    this.byInstance.set(record.instance_id, conn);
    for (const l of [...this.listeners]) l();
    return { conn, replaced };
  }

  /** Forget a connection if it is still the current one for its instance. */
  remove(conn: BrowserConn): boolean {
    const current = this.byInstance.get(conn.instanceId);
    if (current?.generation !== conn.generation) return false;
    this.byInstance.delete(conn.instanceId);
    return true;
  }

  get(instanceId: string): BrowserConn | undefined {
    return this.byInstance.get(instanceId);
  }

  list(): BrowserConn[] {
    return [...this.byInstance.values()];
  }

  get size(): number {
    return this.byInstance.size;
  }

  /**
   * Resolve with `probe()`'s first defined value, checked now and whenever a browser connects;
   * undefined after `ms`; rejects if `probe` throws or the signal aborts.
   */
  waitFor<T>(probe: () => T | undefined, ms: number, signal?: AbortSignal): Promise<T | undefined> {
    const first = probe();
    if (first !== undefined) return Promise.resolve(first);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const { promise, resolve, reject } = Promise.withResolvers<T | undefined>();
    const done = () => {
      clearTimeout(timer);
      this.listeners.delete(check);
      signal?.removeEventListener("abort", onAbort);
    };
    const check = () => {
      try {
        const v = probe();
        if (v === undefined) return;
        done();
        resolve(v);
      } catch (err) {
        done();
        reject(err);
      }
    };
    const onAbort = () => {
      done();
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      done();
      resolve(undefined);
    }, ms);
    this.listeners.add(check);
    signal?.addEventListener("abort", onAbort, { once: true });
    return promise;
  }
}

interface Pickable {
  instance_id: string;
  label: string;
  name: string;
  device_id?: string;
}

/**
 * Which browser a session starts in. `choice` is an instance id or a paired device id (exact), or a label.
 * Returns undefined when no browser is connected (the caller waits for one).
 */
export function pickBrowser<T extends Pickable>(browsers: readonly T[], choice?: string): T | undefined {
  if (browsers.length === 0) return undefined;
  if (choice) {
    const exact = browsers.find((b) => b.instance_id === choice || b.device_id === choice);
    if (exact) return exact;
    const labelled = browsers.filter((b) => b.label === choice);
    if (labelled.length === 1) return labelled[0];
    if (labelled.length > 1) {
      throw new BskError("invalid_params", `${labelled.length} browsers are labelled "${choice}"`, {
        data: { reason: "label_ambiguous", instance_ids: labelled.map((b) => b.instance_id) },
      });
    }
    throw new BskError("not_found", `no connected browser has the id or label "${choice}"`, {
      hint: "List connected browsers with: bsk browsers.",
      data: { browsers: browsers.map(summary) },
    });
  }
  if (browsers.length === 1) return browsers[0];
  const remote = browsers.some((b) => b.device_id !== undefined);
  const named = browsers.map((b) => `${b.label} (${b.device_id ?? b.instance_id})`).join(", ");
  throw new BskError("multiple_browsers_online", `${browsers.length} browsers are connected: ${named}; choose one`, {
    hint: remote ? "Pass --device <device id or label> (bsk daemon devices)." : "Pass --browser <instance id or label> (bsk browsers).",
    data: { browsers: browsers.map(summary) },
  });
}

function summary(b: Pickable) {
  return { instance_id: b.instance_id, label: b.label, name: b.name, ...(b.device_id && { device_id: b.device_id }) };
}
