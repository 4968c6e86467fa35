/**
 * One link to one daemon (the local one, or a bsk server): the socket's whole life — dial, prove, handshake,
 * heartbeat, requests both ways, the link's own event stream (ports/outbox.ts), back-off — with what differs between
 * links given by a `LinkSpec`: where to dial and with what, how each side proves itself, which sessions are the
 * link's, what a close means, and how its status is shown. Until the daemon has proven itself and taken our
 * handshake the socket is not "trusted": it gets no answer to any request, no event and no session.
 */
import { browser } from "wxt/browser";
import type { Params, Result } from "../../../protocol/catalog.ts";
import { BskError, type ErrorBody } from "../../../protocol/errors.ts";
import { HOLD_INPUT, OP_DURABLE, parseFrame, type ResponseFrame } from "../../../protocol/frames.ts";
import { EXTENSION_CLIENT, PROTOCOL_VERSION } from "../../../protocol/version.ts";
import { onAck, outboxStream, setSink, type LinkId } from "../ports/outbox.ts";
import { linkDown, type DaemonLink } from "../ports/to-daemon.ts";
import { raceAbort } from "../shared/abort.ts";
import { parseBrowser, type BrowserId } from "../shared/browser-info.ts";
import type { CallContext } from "../shared/handler.ts";
import { allSessions, closeSession, getSession, sessionsReady } from "../session/sessions.ts";
import { loadSettings, type SessionState } from "../session/settings.ts";
import { Backoff } from "./backoff.ts";
import { send, serveRequest } from "./serve.ts";
import { opDurable, type Served } from "./served.ts";

const HANDSHAKE_TIMEOUT_MS = 10_000;
const HEARTBEAT_MAX_MS = 20_000;

export type HandshakeResult = Result<"system.handshake">;

/** What to do on a connect: stay off the network (the spec showed why), or dial `url`, known as `key`. */
export type Plan<Ctx> = { off: true; retryMs?: number } | { off?: false; key: string; url: string; ctx: Ctx };

/** The daemon's side of the proof: the proof for our handshake, or why not (the spec showed it). */
export type Proven = { ok: true; proof: string } | { ok: false; untrusted?: boolean; close?: string; retryNow?: boolean };

/** What a close means: stop for good (the spec showed why), or retry (after `retryMs`, else the back-off). */
/** `error` is English detail (logs, status); `reason` a short code the popup words in the person's language. */
export type CloseVerdict = { stop: true } | { stop?: false; retryMs?: number; error?: string; reason?: string; keepStatus?: boolean };

/** The states the link itself reports; each spec shows them in its own status shape. */
export type CoreState = "connecting" | "connected" | "disconnected";

export interface LinkSpec<Ctx> {
  /** Which event stream of the outbox is this link's. */
  id: LinkId;
  backoff: { minMs: number; maxMs: number };
  plan(opts: ConnectOptions): Promise<Plan<Ctx>>;
  prove(ctx: Ctx, request: (method: string, params: unknown) => Promise<ResponseFrame>): Promise<Proven>;
  /** Whether a session is this link's (its agent is behind this daemon). */
  owns(s: SessionState, ctx: Ctx): boolean;
  /** Where requests on this link come from, for the dispatcher (a remote host, or nothing for the local daemon). */
  origin(ctx: Ctx): Pick<CallContext, "remoteHost">;
  show(ctx: Ctx, state: CoreState, detail: { error?: string; reason?: string; result?: HandshakeResult }): Promise<void>;
  /** The daemon refused our handshake: show why (the socket is closed after). */
  refused(ctx: Ctx, error: ErrorBody): Promise<void>;
  closed(ctx: Ctx, code: number, reason: string): CloseVerdict | Promise<CloseVerdict>;
  up?(ctx: Ctx, ws: WebSocket, result: HandshakeResult): void | Promise<void>;
  down?(): void;
}

export interface ConnectOptions {
  /** Replace an open socket anyway (the target or the key changed). */
  force?: boolean;
  /** The back-off's own retry: the delay keeps doubling. */
  retry?: boolean;
  /** The person asked to connect again (popup). */
  resume?: boolean;
}

export function browserId(): BrowserId {
  const uaData = (navigator as Navigator & { userAgentData?: { brands: { brand: string; version: string }[] } }).userAgentData;
  return parseBrowser(navigator.userAgent, uaData?.brands);
}

export class Link<Ctx> {
  socket: WebSocket | null = null;
  /** The socket whose daemon proved itself and took our handshake: the only one served. */
  trusted: WebSocket | null = null;
  /** What the socket dialed (Plan key): a connect to the same target keeps a live socket. */
  private dialed = "";
  /** The last attempt met something that could not prove itself: that stays shown until a daemon proves itself. */
  private untrusted = false;
  private readonly backoff: Backoff;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  private ownIds = 0;
  /** Replies to the requests we send (hello, handshake, transfers). */
  private readonly awaiting = new Map<string | number, (frame: ResponseFrame) => void>();
  /** The daemon's requests being worked on, by request id. */
  private readonly inflight = new Map<string | number, Served>();
  /** Connect attempts run one after another, so two triggers never open two sockets. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly spec: LinkSpec<Ctx>) {
    this.backoff = new Backoff(spec.backoff.minMs, spec.backoff.maxMs);
  }

  /**
   * Opens the socket unless one is open or opening to the same target; `force` replaces it anyway. Other triggers
   * (alarm, start-up, the popup) cancel a pending retry and start over from the shortest delay; only the back-off's
   * own retries keep doubling it.
   */
  connect(opts: ConnectOptions = {}): Promise<void> {
    this.chain = this.chain.then(() => this.open(opts)).catch((err: unknown) => console.error(`bsk: ${this.spec.id} connect failed`, err));
    return this.chain;
  }

  /** Closes the socket (if any) and cancels a pending retry; nothing reconnects until the next connect. */
  close(why: string): void {
    clearTimeout(this.retryTimer);
    if (this.socket) this.retire(this.socket, why);
  }

  /** The trusted socket as a way to send our own requests (ports/to-daemon.ts), or null while the link is down. */
  caller(): DaemonLink | null {
    const ws = this.trusted;
    if (!ws) return null;
    return async (method, params, timeoutMs, signal) => {
      if (ws !== this.trusted || ws.readyState !== WebSocket.OPEN) throw linkDown(method);
      const reply = await raceAbort(this.request(ws, method, params, timeoutMs, true), signal);
      if ("error" in reply) throw BskError.from(reply.error as ErrorBody);
      return reply.result;
    };
  }

  private async open(opts: ConnectOptions): Promise<void> {
    await sessionsReady();
    clearTimeout(this.retryTimer);
    if (!opts.retry) this.backoff.reset();
    const plan = await this.spec.plan(opts);
    if (plan.off) {
      if (this.socket) this.retire(this.socket, "disconnected");
      if (plan.retryMs !== undefined) this.retryIn(plan.retryMs);
      return;
    }
    const ws0 = this.socket;
    const live = ws0 && (ws0.readyState === WebSocket.CONNECTING || ws0.readyState === WebSocket.OPEN);
    if (live && !opts.force && this.dialed === plan.key) return;
    if (ws0) this.retire(ws0, "reconnecting");
    if (this.dialed !== plan.key) this.untrusted = false;
    // An untrusted daemon stays the state shown until one proves itself (no flicker through "connecting").
    if (!this.untrusted) await this.spec.show(plan.ctx, "connecting", {});
    const ws = new WebSocket(plan.url);
    this.socket = ws;
    this.dialed = plan.key;
    ws.onopen = () => void this.handshake(ws, plan.ctx);
    ws.onmessage = (ev) => this.onMessage(ws, String(ev.data), plan.ctx);
    ws.onclose = (ev) => void this.onClosed(ws, plan.ctx, ev.code, ev.reason);
  }

  private retryIn(ms: number): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect({ retry: true }), ms);
  }

  /** Closes a socket we no longer want without scheduling a reconnect for it. */
  private retire(ws: WebSocket, why: string): void {
    ws.onclose = null;
    ws.onmessage = null;
    ws.onopen = null;
    try {
      ws.close(1000, why);
    } catch {
      /* already closed */
    }
    if (this.socket === ws) this.lost();
  }

  /** Shared by every way a socket ends: no more events to it, no work for it. */
  private lost(): void {
    this.socket = null;
    this.trusted = null;
    setSink(this.spec.id, null);
    this.spec.down?.();
    clearInterval(this.heartbeatTimer);
    // A held call among them never sends its input: its op may not be on the daemon's disk.
    for (const { ac } of this.inflight.values()) ac.abort(new BskError("cancelled", "the connection to the daemon closed"));
    this.inflight.clear();
    for (const resolve of this.awaiting.values()) resolve({ id: null, error: { code: "protocol_error", message: "connection closed" } });
    this.awaiting.clear();
  }

  private async onClosed(ws: WebSocket, ctx: Ctx, code: number, reason: string): Promise<void> {
    if (ws !== this.socket) return;
    this.lost();
    const verdict = await this.spec.closed(ctx, code, reason);
    if (verdict.stop) return;
    if (!this.untrusted && !verdict.keepStatus) await this.spec.show(ctx, "disconnected", { error: verdict.error, reason: verdict.reason });
    this.retryIn(verdict.retryMs ?? this.backoff.next());
  }

  /** Sends one of our own requests on `ws` and waits for its reply (or the timeout, which closes the socket unless `keep`). */
  private request(ws: WebSocket, method: string, params: unknown, timeoutMs: number, keep = false): Promise<ResponseFrame> {
    const id = `${this.spec.id[0]}${++this.ownIds}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.awaiting.delete(id);
        resolve({ id, error: { code: "timeout", message: `no answer to ${method} within ${timeoutMs} ms` } });
        if (!keep) ws.close(4000, `${method} timed out`);
      }, timeoutMs);
      this.awaiting.set(id, (frame) => {
        clearTimeout(timer);
        this.awaiting.delete(id);
        resolve(frame);
      });
      send(ws, { id, method, params });
    });
  }

  private owned(ctx: Ctx): SessionState[] {
    return allSessions().filter((s) => this.spec.owns(s, ctx));
  }

  private async handshake(ws: WebSocket, ctx: Ctx): Promise<void> {
    const proven = await this.spec.prove(ctx, (method, params) => this.request(ws, method, params, HANDSHAKE_TIMEOUT_MS));
    if (ws !== this.socket) return;
    if (!proven.ok) {
      this.untrusted = proven.untrusted === true;
      if (proven.close) ws.close(1000, proven.close);
      if (proven.retryNow) void this.connect();
      return;
    }
    const settings = await loadSettings(browserId().name.toLowerCase());
    const params: Params<"system.handshake"> = {
      proof: proven.proof,
      client: EXTENSION_CLIENT,
      version: browser.runtime.getManifest().version,
      protocol_version: PROTOCOL_VERSION,
      instance_id: settings.instance_id,
      browser: browserId(),
      label: settings.label,
      // Only this daemon's own sessions: another daemon's agent's session is none of its business.
      sessions: this.owned(ctx).map((s) => ({
        session_id: s.session_id,
        window_id: s.window_id,
        tab_ids: Object.keys(s.tabs).map(Number),
        current_tab_id: s.current_tab_id,
      })),
      event_stream: await outboxStream(this.spec.id),
      features: [HOLD_INPUT],
    };
    const reply = await this.request(ws, "system.handshake", params, HANDSHAKE_TIMEOUT_MS);
    if (ws !== this.socket) return;
    if ("error" in reply) {
      await this.spec.refused(ctx, reply.error as ErrorBody);
      ws.close(1000, "handshake refused");
      return;
    }
    const result = reply.result as HandshakeResult;
    this.backoff.reset();
    this.untrusted = false;
    this.trusted = ws;
    await this.spec.show(ctx, "connected", { result });
    if (ws !== this.trusted) return;
    const beat = () => send(ws, { event: "system.heartbeat", payload: { sessions: this.owned(ctx).length } });
    clearInterval(this.heartbeatTimer);
    // Traffic at least every 20 s also keeps the service worker alive (it is stopped after 30 s idle).
    this.heartbeatTimer = setInterval(beat, Math.min(Math.max(1000, result.heartbeat_ms), HEARTBEAT_MAX_MS));
    setSink(this.spec.id, (frame) => send(ws, frame), result.events_acked ?? 0);
    await this.spec.up?.(ctx, ws, result);
    // Sessions the daemon could not take back are ended here, cleanly (their tabs closed one by one).
    for (const ended of result.ended) {
      const s = getSession(ended.session_id);
      if (s && this.spec.owns(s, ctx)) await closeSession(ended.session_id);
    }
  }

  private onMessage(ws: WebSocket, text: string, ctx: Ctx): void {
    const parsed = parseFrame(text);
    if (!parsed.ok) {
      console.warn(`bsk: dropped a frame from the ${this.spec.id} daemon: ${parsed.message}`);
      return;
    }
    const { kind, frame } = parsed.value;
    if (kind === "response") this.awaiting.get(frame.id ?? "")?.(frame);
    else if (kind === "event" && frame.event === "system.ack" && ws === this.trusted)
      onAck(this.spec.id, Number((frame.payload as { seq?: unknown } | null)?.seq));
    else if (kind === "event" && frame.event === OP_DURABLE && ws === this.trusted) opDurable(this.inflight, frame.payload);
    // Requests are served only once the daemon has proven itself and taken our handshake; before that they get no
    // answer at all.
    else if (kind === "request" && ws === this.trusted) void serveRequest(ws, frame, this.inflight, this.spec.origin(ctx));
  }
}
