/**
 * A scripted extension: connects to the daemon's gateway like the real service worker, proves the install's
 * secret (system.hello, then system.handshake with its proof; protocol/trust.ts), and answers the daemon's requests. Requests other than session.open/close and cancel are held until the
 * test replies to them, so ordering tests never depend on timing.
 */
import { createHmac } from "node:crypto";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { framePieces } from "../../protocol/pieces.ts";
import { LABELS, NONCE_BYTES, randomBase64url, toBase64url, transcript } from "../../protocol/trust.ts";
import { REMOTE_LABELS, remoteTranscript } from "../../protocol/remote.ts";
import { PROTOCOL_VERSION } from "../../protocol/version.ts";
import { AsyncQueue } from "./async-queue.ts";
import type { Reply } from "./ipc-client.ts";

export interface ReportedSession {
  session_id: string;
  window_id: number;
  tab_ids: number[];
  current_tab_id: number | null;
}

export interface PeerOptions {
  port: number;
  origin?: string;
  instanceId?: string;
  label?: string;
  protocolVersion?: string;
  /** Sessions reported in the handshake (a reconnect after a daemon restart). */
  sessions?: ReportedSession[];
  /** Answer session.open / session.close by itself (default true). */
  autoSession?: boolean;
  /** This install's secret (TestDaemon.secret); without it the peer cannot prove itself and is refused. */
  secret?: Uint8Array;
  /** What it offers beyond its protocol version in the handshake (HOLD_INPUT); none by default, as an older extension. */
  features?: string[];
  /** Remote mode: dial this URL (wss://…/extension) trusting `ca`, and prove the device's secret instead. */
  remote?: { url: string; ca?: string; authority: string; device: { id: string; generation: number; secret: Uint8Array } };
}

export interface Incoming {
  id: string;
  method: string;
  params: any;
  meta: { trace_id?: string; timeout_ms?: number; hold?: true };
  reply(result: unknown, timings?: Record<string, number>): void;
  fail(code: string, message: string, data?: Record<string, unknown>): void;
}

let instanceCounter = 0;

export class Peer {
  readonly instanceId: string;
  readonly label: string;
  /** Requests from the daemon waiting for the test to answer them. */
  readonly requests = new AsyncQueue<Incoming>();
  /** session.close requests from the daemon (answered automatically unless autoSession is off). */
  readonly closes = new AsyncQueue<Incoming>();
  /** `cancel` requests from the daemon (answered automatically). */
  readonly cancels = new AsyncQueue<Incoming>();
  /** Frames that answer nothing of ours (protocol errors with id null, ...). */
  readonly unmatched = new AsyncQueue<Reply>();
  /** Sessions this browser holds: opened by session.open, forgotten on session.close. */
  readonly sessions = new Map<string, ReportedSession>();
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly waiting = new Map<string, (r: Reply) => void>();
  private counter = 0;
  private nextWindow = 100;

  private constructor(
    readonly ws: WebSocket,
    readonly opts: PeerOptions,
  ) {
    this.instanceId = opts.instanceId ?? `peer-${process.pid}-${++instanceCounter}`;
    this.label = opts.label ?? "test";
    for (const s of opts.sessions ?? []) this.sessions.set(s.session_id, s);
    const { promise, resolve } = Promise.withResolvers<{ code: number; reason: string }>();
    this.closed = promise;
    ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason }));
    ws.addEventListener("message", (e) => this.onMessage(String(e.data)));
  }

  /** Open the socket (no handshake yet). Rejects if the daemon refuses the upgrade. */
  static async connect(opts: PeerOptions): Promise<Peer> {
    const origin = opts.origin ?? `chrome-extension://${EXTENSION_ID}`;
    const url = opts.remote?.url ?? `ws://127.0.0.1:${opts.port}/extension`;
    const ws = new WebSocket(url, { headers: { Origin: origin }, ...(opts.remote?.ca && { tls: { ca: opts.remote.ca } }) } as any);
    const peer = new Peer(ws, opts);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener("open", () => resolve(), { once: true });
      ws.addEventListener("error", () => reject(new Error("websocket refused")), { once: true });
    });
    return peer;
  }

  /** Connect and handshake; throws if the daemon answers the handshake with an error. */
  static async start(opts: PeerOptions): Promise<Peer> {
    const peer = await Peer.connect(opts);
    const r = await peer.handshake();
    if (r.error) throw new Error(`handshake refused: ${r.error.code}: ${r.error.message}`);
    return peer;
  }

  /** Whether the daemon proved the secret in its hello (checked like the real extension does). */
  daemonProven = false;

  /** system.hello, then system.handshake with this peer's proof (a wrong one without the secret). */
  async handshake(overrides: Record<string, unknown> = {}): Promise<Reply> {
    const nonceE = randomBase64url(NONCE_BYTES);
    const remote = this.opts.remote;
    const hello = await this.request("system.hello", {
      protocol_version: this.opts.protocolVersion ?? PROTOCOL_VERSION,
      nonce: nonceE,
      ...(remote && { device_id: remote.device.id, generation: remote.device.generation }),
    });
    if (hello.error) return hello;
    const nonceD = String(hello.result.nonce);
    const mac = remote
      ? (label: string) =>
          toBase64url(
            createHmac("sha256", remote.device.secret)
              .update(remoteTranscript(label, remote.authority, nonceE, nonceD, remote.device.id))
              .digest(),
          )
      : (label: string) =>
          toBase64url(
            createHmac("sha256", this.opts.secret ?? new Uint8Array(32))
              .update(transcript(label, this.opts.port, nonceE, nonceD))
              .digest(),
          );
    const [daemonLabel, extensionLabel] = remote
      ? [REMOTE_LABELS.deviceDaemon, REMOTE_LABELS.deviceExtension]
      : [LABELS.daemonProof, LABELS.extensionProof];
    this.daemonProven = (!!this.opts.secret || !!remote) && hello.result.proof === mac(daemonLabel);
    return this.request("system.handshake", {
      proof: mac(extensionLabel),
      client: "bsk-extension",
      version: "0.1.0",
      protocol_version: this.opts.protocolVersion ?? PROTOCOL_VERSION,
      instance_id: this.instanceId,
      browser: { name: "Chromium", version: "156.0" },
      label: this.label,
      sessions: [...this.sessions.values()],
      ...(this.opts.features && { features: this.opts.features }),
      ...overrides,
    });
  }

  request(method: string, params: unknown): Promise<Reply> {
    const id = `p${++this.counter}`;
    const { promise, resolve } = Promise.withResolvers<Reply>();
    this.waiting.set(id, resolve);
    this.send({ id, method, params });
    return promise;
  }

  /**
   * Resolves once the daemon has handled every frame this peer sent before it: the daemon handles a
   * link's frames in order, and answers an unknown method at once.
   */
  async barrier(): Promise<void> {
    await this.request("peer.barrier", {});
  }

  event(name: string, payload: unknown): void {
    this.send({ event: name, payload });
  }

  /** Like the extension: a frame over 64 KiB goes in pieces. */
  send(frame: object): void {
    for (const message of framePieces(JSON.stringify(frame))) this.ws.send(message);
  }

  sendRaw(text: string): void {
    this.ws.send(text);
  }

  /** The next held request (optionally of one method). */
  next(method?: string, timeoutMs?: number): Promise<Incoming> {
    return this.requests.next((r) => !method || r.method === method, `a ${method ?? "request"} at the peer`, timeoutMs);
  }

  nextCancel(targetId?: string): Promise<Incoming> {
    return this.cancels.next((c) => !targetId || c.params.id === targetId, `a cancel${targetId ? ` of ${targetId}` : ""} at the peer`);
  }

  close(code = 1000): void {
    this.ws.close(code);
  }

  private onMessage(text: string): void {
    const frame = JSON.parse(text);
    if ("method" in frame) return this.onRequest(frame);
    const w = frame.id === null ? undefined : this.waiting.get(String(frame.id));
    if (w) {
      this.waiting.delete(String(frame.id));
      w(frame);
    } else this.unmatched.push(frame);
  }

  private onRequest(frame: { id: string; method: string; params: any; meta: any }): void {
    const incoming: Incoming = {
      id: frame.id,
      method: frame.method,
      params: frame.params,
      meta: frame.meta ?? {},
      reply: (result, timings = { extension: 1 }) => this.send({ id: frame.id, result, meta: { timings } }),
      fail: (code, message, data) => this.send({ id: frame.id, error: { code, message, ...(data && { data }) } }),
    };
    const auto = this.opts.autoSession ?? true;
    if (frame.method === "cancel") {
      incoming.reply({ cancelled: true });
      this.cancels.push(incoming);
    } else if (auto && frame.method === "session.open") {
      const window_id = this.nextWindow++;
      const tab_id = window_id * 10;
      this.sessions.set(frame.params.session_id, {
        session_id: frame.params.session_id,
        window_id,
        tab_ids: [tab_id],
        current_tab_id: tab_id,
      });
      incoming.reply({ window_id, tab_id });
    } else if (auto && frame.method === "session.close") {
      const s = this.sessions.get(frame.params.session_id);
      this.sessions.delete(frame.params.session_id);
      incoming.reply({ closed_tab_ids: s?.tab_ids ?? [], returned_tab_ids: [] });
      this.closes.push(incoming);
    } else this.requests.push(incoming);
  }
}
