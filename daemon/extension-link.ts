/**
 * Frames from an extension: the handshake first (version rule, registry, session re-adoption), then
 * responses to the daemon's requests and events (session ended, tabs, navigations, heartbeats).
 * A malformed frame is answered with protocol_error and the link lives on.
 */
import type { ServerWebSocket } from "bun";
import { realpathSync } from "node:fs";
import { METHODS } from "../protocol/catalog.ts";
import { BskError, toErrorBody } from "../protocol/errors.ts";
import { EVENTS, type EventName } from "../protocol/events.ts";
import {
  CALL_PROGRESS,
  CallProgress,
  encodeFrame,
  HOLD_INPUT,
  parseFrame,
  type EventFrame,
  type RequestFrame,
  type ResponseFrame,
} from "../protocol/frames.ts";
import type { PieceJoiner } from "../protocol/pieces.ts";
import { APP_VERSION, checkCompatibility, DAEMON_NAME, PROTOCOL_VERSION } from "../protocol/version.ts";
import { browserGone, type BrowserConn, type BrowserRegistry } from "./browsers.ts";
import type { DaemonConfig } from "./config.ts";
import type { EventSink, EventSource } from "./event-log.ts";
import { eventIntake } from "./event-intake.ts";
import type { Logger } from "./log.ts";
import type { SessionRegistry } from "./sessions.ts";
import { onControlEvent } from "./takeover.ts";
import { versionRefusal } from "../protocol/version-refusal.ts";
import { beforeHandshake, type LinkTrust, type TrustDeps } from "./trust/link-trust.ts";
import { answerFileUrl } from "./local-files.ts";
import { extensionTransfer, isTransferMethod } from "./transfer-link.ts";
import { watchGrant } from "./remote/grant-watch.ts";
import type { TransferStore } from "./transfers.ts";

export interface LinkDeps {
  config: DaemonConfig;
  log: Logger;
  browsers: BrowserRegistry;
  sessions: SessionRegistry;
  events: EventSink;
  onChange: () => void;
  /** This install's secret and pending pairing code: a link proves the secret before it is a browser. */
  trust: Omit<TrustDeps, "log">;
  /** Staged files the extension reads (uploads) and writes (full-page captures). */
  transfers?: TransferStore;
  /** For what links that have not handshaken cause: warnings rate-limited and summarised (log-limit.ts). */
  untrustedLog?: Logger;
}

/** WebSocket close codes the daemon uses (4000-4999 are the application's). */
export const CLOSE = {
  handshakeTimeout: 4001,
  versionTooOld: 4002,
  replaced: 4003,
  silent: 4004,
  goingAway: 1001,
  unsupportedData: 1003,
  tooLarge: 1009,
} as const;

export interface LinkState {
  extensionId: string;
  openedAt: number;
  trust: LinkTrust;
  handshakeTimer?: Timer;
  conn?: BrowserConn;
  /** Dropped for silence: its sessions already ended, no reconnect grace. */
  silent?: boolean;
  /** A large frame arriving in pieces (after the handshake only). */
  pieces?: PieceJoiner;
  /** A paired device's link: stops the watch that closes it when its grant expires (remote/grant-watch.ts). */
  stopGrantWatch?: () => void;
}

type Ws = ServerWebSocket<LinkState>;

export function send(ws: ServerWebSocket<LinkState>, frame: object): void {
  try {
    ws.send(encodeFrame(frame));
  } catch {}
}

function reject(ws: Ws, id: string | number | null, err: BskError): void {
  send(ws, { id, error: toErrorBody(err) });
}

export function handleExtensionFrame(ws: Ws, text: string, deps: LinkDeps): void {
  const conn = ws.data.conn;
  if (conn) conn.lastFrameAt = performance.now();
  const parsed = parseFrame(text);
  if (!parsed.ok) {
    const tooLarge = parsed.message.includes("16 MiB");
    return reject(ws, parsed.id, new BskError("protocol_error", parsed.message, tooLarge ? { data: { reason: "frame_too_large" } } : {}));
  }
  const { value } = parsed;
  if (!conn) {
    const proven = beforeHandshake(ws, value, { ...deps.trust, log: deps.untrustedLog ?? deps.log });
    if (proven) handshake(ws, proven, deps);
    return;
  }
  switch (value.kind) {
    case "response":
      onResponse(conn, value.frame, deps);
      return;
    case "event":
      if (value.frame.event === CALL_PROGRESS) return onProgress(conn, value.frame.payload);
      return onEvent(ws, conn, value.frame, deps);
    case "request":
      if (isTransferMethod(value.frame.method)) {
        void extensionTransfer(deps, conn, value.frame).then((reply) => send(ws, reply));
        return;
      }
      if (value.frame.method === "system.file_url")
        return send(ws, answerFileUrl(value.frame, deps.config.paths, ws.data.trust.deviceId !== undefined));
      return reject(
        ws,
        value.frame.id,
        value.frame.method === "system.handshake"
          ? new BskError("protocol_error", "this link has already handshaken")
          : new BskError("unknown_method", `the daemon does not serve ${value.frame.method} to the extension`),
      );
  }
}

/** Runs once the extension has proven the secret (trust/link-trust.ts). */
function handshake(ws: Ws, frame: RequestFrame, deps: LinkDeps): void {
  const { log, config } = deps;
  // The version rule first, before the params' shape: another major's handshake may be shaped otherwise, and its
  // extension is still told which side to update (the first thing a proven link hears about versions).
  const theirs = (frame.params as { protocol_version?: unknown } | undefined)?.protocol_version;
  const compat = checkCompatibility(PROTOCOL_VERSION, theirs);
  if (!compat.ok) {
    log.warn("extension refused: protocol version", { extension_protocol: theirs, daemon_protocol: PROTOCOL_VERSION });
    reject(ws, frame.id, versionRefusal(String(theirs)));
    ws.close(CLOSE.versionTooOld, "version_too_old");
    return;
  }
  const parsed = METHODS["system.handshake"].params().safeParse(frame.params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return reject(
      ws,
      frame.id,
      new BskError("invalid_params", `system.handshake: params.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`),
    );
  }
  const p = parsed.data;
  if (ws.data.handshakeTimer) clearTimeout(ws.data.handshakeTimer);
  const { conn, replaced } = deps.browsers.add(
    ws,
    {
      instance_id: p.instance_id,
      label: p.label,
      name: p.browser.name,
      version: p.browser.version,
      extension_version: p.version,
      protocol_version: p.protocol_version,
      skew: compat.skew,
      connected_at: new Date().toISOString(),
      ...(ws.data.trust.deviceId && { device_id: ws.data.trust.deviceId }),
    },
    { holdsInput: p.features.includes(HOLD_INPUT) },
  );
  ws.data.conn = conn;
  const deviceId = ws.data.trust.deviceId;
  if (deviceId && deps.trust.remote) {
    ws.data.stopGrantWatch?.();
    ws.data.stopGrantWatch = watchGrant(deps.trust.remote.devices, deviceId, { close: (code, why) => ws.close(code, why) });
  }
  if (replaced) {
    replaced.markClosed(browserGone(p.instance_id, "the browser reconnected on a new link"));
    replaced.close(CLOSE.replaced, "replaced by a new connection");
  }
  const { adopted, ended } = deps.sessions.adopt(p.instance_id, p.sessions);
  const eventsAcked = eventIntake(deps.events).open(
    conn,
    p.event_stream,
    deps.sessions.liveOn(p.instance_id).map((rt) => rt.id),
  );
  send(ws, {
    id: frame.id,
    result: {
      server: DAEMON_NAME,
      version: APP_VERSION,
      protocol_version: PROTOCOL_VERSION,
      skew: compat.skew,
      heartbeat_ms: config.heartbeatMs,
      adopted,
      ended,
      events_acked: eventsAcked,
      bsk_home: homeForms(config.paths.home),
    },
  });
  log.info("browser connected", {
    browser: p.instance_id,
    label: p.label,
    extension: ws.data.extensionId,
    extension_version: p.version,
    protocol: p.protocol_version,
    skew: compat.skew,
    adopted,
    ended: ended.map((e) => e.session_id),
    replaced: !!replaced,
    features: p.features,
  });
  deps.onChange();
}

/**
 * A reply counts only on the connection the request went out on; anything else (another browser answering, a
 * replaced connection's late reply to an id it was never sent) is dropped and logged.
 */
function onResponse(conn: BrowserConn, frame: ResponseFrame, deps: LinkDeps): void {
  if (conn.handleResponse(frame)) return;
  if (conn.wasSent(frame.id)) {
    deps.log.debug("late response (the call had already ended)", { id: frame.id, browser: conn.instanceId });
    return;
  }
  deps.log.warn("dropped a response to a request this browser connection was never sent", { id: frame.id, browser: conn.instanceId });
}

/** A numbered event is recorded once, and acknowledged whatever became of it (event-intake.ts). */
/** Progress is passed on as it comes, or not at all: it is never stored, acknowledged or resent. */
function onProgress(conn: BrowserConn, payload: unknown): void {
  const parsed = CallProgress.safeParse(payload);
  if (parsed.success) conn.handleProgress(parsed.data);
}

function onEvent(ws: Ws, conn: BrowserConn, frame: EventFrame, deps: LinkDeps): void {
  const intake = eventIntake(deps.events);
  const taken = intake.accept(conn, frame.seq);
  try {
    if (taken.kind === "fresh") recordEvent(ws, conn, frame, deps, taken.source);
  } finally {
    intake.ack(conn, frame.seq);
  }
}

function recordEvent(ws: Ws, conn: BrowserConn, frame: EventFrame, deps: LinkDeps, source?: EventSource): void {
  const name = frame.event;
  if (!Object.hasOwn(EVENTS, name)) {
    deps.log.debug("unknown event from extension", { event: name, browser: conn.instanceId });
    return;
  }
  const parsed = EVENTS[name as EventName]().safeParse(frame.payload ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return reject(
      ws,
      null,
      new BskError("protocol_error", `event ${name}: payload.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`),
    );
  }
  const payload = parsed.data as Record<string, unknown>;
  if (name === "system.heartbeat") return;

  const sessionId = payload.session_id as string;
  // A browser speaks only for its own sessions, and only on its current connection (not one it replaced).
  const current = deps.browsers.get(conn.instanceId) === conn;
  const rt = deps.sessions.get(sessionId);
  if (current && !rt && name === "session.ended") {
    if (!deps.sessions.amendEnd(sessionId, conn.instanceId, String(payload.reason), payload.lost_tab_ids as number[])) {
      deps.log.warn("dropped an event for a session this browser does not own", {
        event: name,
        session: sessionId,
        browser: conn.instanceId,
      });
    }
    return;
  }
  if (!current || !rt || rt.record.browser_instance_id !== conn.instanceId) {
    deps.log.warn("dropped an event for a session this browser connection does not own", {
      event: name,
      session: sessionId,
      browser: conn.instanceId,
      ...(current ? {} : { replaced: true }),
    });
    return;
  }
  if (name === "session.ended") {
    const lost = payload.lost_tab_ids as number[];
    const cause = typeof payload.cause === "string" ? payload.cause : undefined;
    void deps.sessions.endSession(sessionId, String(payload.reason), { fromBrowser: true, browserAnswers: true, lostTabIds: lost, cause });
    return;
  }
  if (onControlEvent(deps, rt, name, payload)) return;
  const { session_id: _, ...data } = payload;
  // A coalesced burst carries its count beside the payload's own fields (the schemas do not list it).
  const count = (frame.payload as { count?: unknown } | null)?.count;
  deps.events.append(sessionId, name, data, { source, ...(typeof count === "number" && { count }) });
}

/** $BSK_HOME as configured and with symlinks resolved (when it differs), for the extension's file: URL rule. */
function homeForms(home: string): string[] {
  let real = home;
  try {
    real = realpathSync(home);
  } catch {
    /* not there yet: the configured path is all there is */
  }
  return real === home ? [home] : [home, real];
}
