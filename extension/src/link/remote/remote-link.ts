/**
 * The remote link: one WebSocket to a bsk server (wss://HOST[:PORT]/extension), beside the local link
 * (connection.ts), with its own hello, handshake, keep-alive, back-off, requests in flight and events. The server
 * proves the device's secret first (system.hello with device_id and generation; protocol/remote.ts); only then do
 * we prove it and hand over the handshake. A server that says the device is not paired, that its grant expired, or
 * that revoked it (close 4008) stops the reconnect loop: the popup asks the person to pair again.
 */
import { browser } from "wxt/browser";
import type { Params, Result } from "../../../../protocol/catalog.ts";
import { BskError, type ErrorBody } from "../../../../protocol/errors.ts";
import { parseFrame, type ResponseFrame } from "../../../../protocol/frames.ts";
import { REMOTE_LABELS, remoteTranscript } from "../../../../protocol/remote.ts";
import { fromBase64url, hmac, importHmacKey, NONCE_BYTES, randomBase64url, toBase64url, verifyHmac } from "../../../../protocol/trust.ts";
import { EXTENSION_CLIENT, PROTOCOL_VERSION } from "../../../../protocol/version.ts";
import { setEventRouter, type Sink } from "../../ports/outbox.ts";
import { linkDown, setLinkRouter, type DaemonLink } from "../../ports/to-daemon.ts";
import { raceAbort } from "../../shared/abort.ts";
import { parseBrowser } from "../../shared/browser-info.ts";
import { allSessions, closeSession, getSession, sessionsReady } from "../../session/sessions.ts";
import { loadSettings, SESSION, type RemoteState, type RemoteStatus } from "../../session/settings.ts";
import { send, serveRequest } from "../serve.ts";
import { pairRemote, renewRemote, type AuthorizeOutcome } from "./authorize.ts";
import { clearGrant, loadGrant, saveGrant, type RemoteGrant } from "./grant-store.ts";

const HANDSHAKE_TIMEOUT_MS = 10_000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const HEARTBEAT_MAX_MS = 20_000;
/** The server's close code for a revoked device (daemon/handlers/devices.ts). */
export const REVOKED_CLOSE = 4008;
/** The server's close code for a link whose grant expired while it was live (daemon/remote/grant-watch.ts). */
export const GRANT_EXPIRED_CLOSE = 4009;

interface RemoteLinkState {
  socket: WebSocket | null;
  /** The socket whose server proved the device's secret and took our handshake: the only one served. */
  trusted: WebSocket | null;
  backoff: number;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
  heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  /** Set by a refusal (not paired, expired, revoked): no reconnect until the person pairs again. */
  stopped: RemoteState | null;
  /** Why the server refused the last hello or handshake (its error's data.reason). */
  lastRefusal: string | undefined;
  ownIds: number;
  awaiting: Map<string | number, (frame: ResponseFrame) => void>;
  inflight: Map<string | number, AbortController>;
  chain: Promise<void>;
  renewing: Promise<void> | null;
}
const remoteState: RemoteLinkState = {
  socket: null,
  trusted: null,
  backoff: BACKOFF_MIN_MS,
  retryTimer: undefined,
  heartbeatTimer: undefined,
  stopped: null,
  lastRefusal: undefined,
  ownIds: 0,
  awaiting: new Map(),
  inflight: new Map(),
  chain: Promise.resolve(),
  renewing: null,
};

function browserInfo() {
  const uaData = (navigator as Navigator & { userAgentData?: { brands: { brand: string; version: string }[] } }).userAgentData;
  return parseBrowser(navigator.userAgent, uaData?.brands);
}

async function setStatus(g: RemoteGrant | null, state: RemoteState, error?: string): Promise<void> {
  if (!g) {
    await browser.storage.session.remove(SESSION.remote).catch(() => undefined);
    return;
  }
  const status: RemoteStatus = {
    state,
    host: g.host,
    authority: g.authority,
    device_id: g.device_id,
    generation: g.generation,
    key_id: g.key_id,
    expires_at: g.expires_at,
    ...(error !== undefined && { error }),
    since: Date.now(),
  };
  await browser.storage.session.set({ [SESSION.remote]: status }).catch(() => undefined);
}

/** Remote sessions' events go to the remote link (or nowhere while it is down); local ones take the usual stream. */
export function installRemoteRouting(): void {
  const sink: Sink = (frame) => {
    if (remoteState.trusted) send(remoteState.trusted, frame);
  };
  setEventRouter((sessionId) => (getSession(sessionId)?.remote_host === undefined ? undefined : remoteState.trusted ? sink : null));
  setLinkRouter((sessionId) => (getSession(sessionId)?.remote_host === undefined ? undefined : remoteState.trusted ? callRemote : null));
}

/** A request of our own (a transfer) to the server on the trusted remote link; throws the server's error. */
const callRemote: DaemonLink = async (method, params, timeoutMs, signal) => {
  const ws = remoteState.trusted;
  if (!ws || ws.readyState !== WebSocket.OPEN) throw linkDown(method);
  const reply = await raceAbort(request(ws, method, params, timeoutMs, true), signal);
  if ("error" in reply) throw BskError.from(reply.error as ErrorBody);
  return reply.result;
};

/** Opens the remote link when a grant is stored and none is open; `force` replaces an open one. */
export function connectRemote(opts: { force?: boolean; retry?: boolean } = {}): Promise<void> {
  remoteState.chain = remoteState.chain.then(() => open(opts)).catch((err: unknown) => console.error("bsk: remote connect failed", err));
  return remoteState.chain;
}

async function open(opts: { force?: boolean; retry?: boolean }): Promise<void> {
  clearTimeout(remoteState.retryTimer);
  if (!opts.retry) remoteState.backoff = BACKOFF_MIN_MS;
  const g = await loadGrant();
  const live =
    remoteState.socket && (remoteState.socket.readyState === WebSocket.CONNECTING || remoteState.socket.readyState === WebSocket.OPEN);
  if (!g) {
    if (remoteState.socket) retire(remoteState.socket);
    return;
  }
  if (remoteState.stopped) return;
  if (live && !opts.force) return;
  if (remoteState.socket) retire(remoteState.socket);
  if (Date.parse(g.expires_at) <= Date.now()) {
    remoteState.stopped = "expired";
    await setStatus(g, "expired", `the grant for ${g.host} expired: pair again`);
    return;
  }
  await sessionsReady();
  const ws = new WebSocket(g.url);
  remoteState.socket = ws;
  remoteState.lastRefusal = undefined;
  await setStatus(g, "connecting");
  ws.onopen = () => void handshake(ws, g);
  ws.onmessage = (ev) => onMessage(ws, String(ev.data));
  ws.onclose = (ev) => void onClosed(ws, g, ev.code, ev.reason);
}

function retire(ws: WebSocket): void {
  ws.onclose = null;
  ws.onmessage = null;
  ws.onopen = null;
  try {
    ws.close(1000, "closing");
  } catch {
    /* closed */
  }
  if (remoteState.socket === ws) lost();
}

function lost(): void {
  remoteState.socket = null;
  remoteState.trusted = null;
  clearInterval(remoteState.heartbeatTimer);
  for (const ac of remoteState.inflight.values()) ac.abort(new BskError("cancelled", "the connection to the server closed"));
  remoteState.inflight.clear();
  for (const resolve of remoteState.awaiting.values())
    resolve({ id: null, error: { code: "protocol_error", message: "connection closed" } });
  remoteState.awaiting.clear();
}

/** What a close (code, and the refusal the server sent before it) means: stop for good, or retry. */
function stopReason(code: number, reason: string): RemoteState | null {
  const why = remoteState.lastRefusal ?? reason;
  if (code === REVOKED_CLOSE) return "revoked";
  if (code === GRANT_EXPIRED_CLOSE) return "expired";
  if (why === "grant_expired") return "expired";
  if (why === "device_not_paired") return "refused";
  return null;
}

const STOP_TEXT: Partial<Record<RemoteState, (host: string) => string>> = {
  revoked: (h) => `revoked by the server ${h} — pair again`,
  expired: (h) => `the grant for ${h} expired — pair again`,
  refused: (h) => `${h} does not know this browser (revoked or forgotten) — pair again`,
};

async function onClosed(ws: WebSocket, g: RemoteGrant, code: number, reason: string): Promise<void> {
  if (ws !== remoteState.socket) return;
  lost();
  const stop = stopReason(code, reason);
  if (stop) {
    remoteState.stopped = stop;
    await setStatus(g, stop, STOP_TEXT[stop]!(g.host));
    return;
  }
  const current = await browser.storage.session.get(SESSION.remote).catch(() => ({}) as Record<string, unknown>);
  const was = (current as Record<string, RemoteStatus | undefined>)[SESSION.remote];
  if (was?.state !== "untrusted")
    await setStatus(g, "disconnected", code === 1006 ? `cannot reach ${g.host} (network or certificate)` : undefined);
  remoteState.retryTimer = setTimeout(() => void connectRemote({ retry: true }), remoteState.backoff);
  remoteState.backoff = Math.min(remoteState.backoff * 2, BACKOFF_MAX_MS);
}

/** Sends one of our own requests and waits for its reply (or the timeout, which closes the socket unless `keep`). */
function request(ws: WebSocket, method: string, params: unknown, timeoutMs: number, keep = false): Promise<ResponseFrame> {
  const id = `r${++remoteState.ownIds}`;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      remoteState.awaiting.delete(id);
      resolve({ id, error: { code: "timeout", message: `no answer to ${method} within ${timeoutMs} ms` } });
      if (!keep) ws.close(4000, `${method} timed out`);
    }, timeoutMs);
    remoteState.awaiting.set(id, (frame) => {
      clearTimeout(timer);
      remoteState.awaiting.delete(id);
      resolve(frame);
    });
    send(ws, { id, method, params });
  });
}

function refusalOf(reply: ResponseFrame): string {
  const error = (reply as { error?: ErrorBody }).error;
  const reason = error?.data?.reason;
  remoteState.lastRefusal = typeof reason === "string" ? reason : undefined;
  return error?.hint ? `${error.message}. ${error.hint}` : (error?.message ?? "refused");
}

async function handshake(ws: WebSocket, g: RemoteGrant): Promise<void> {
  const secret = fromBase64url(g.secret);
  if (!secret) return void ws.close(1000, "damaged grant");
  const key = await importHmacKey(secret);
  const nonceE = randomBase64url(NONCE_BYTES);
  const hello = await request(
    ws,
    "system.hello",
    { protocol_version: PROTOCOL_VERSION, nonce: nonceE, device_id: g.device_id, generation: g.generation },
    HANDSHAKE_TIMEOUT_MS,
  );
  if (ws !== remoteState.socket) return;
  if ("error" in hello) {
    await setStatus(g, "disconnected", refusalOf(hello));
    return;
  }
  const result = hello.result as { nonce?: unknown; proof?: unknown } | undefined;
  const nonceD = typeof result?.nonce === "string" ? result.nonce : "";
  const tr = (label: string) => remoteTranscript(label, g.authority, nonceE, nonceD, g.device_id);
  if (!nonceD || !(await verifyHmac(key, tr(REMOTE_LABELS.deviceDaemon), result?.proof))) {
    // Whoever answers at that address is not the server that paired us: it gets nothing more.
    await setStatus(g, "untrusted", `${g.host} could not prove this browser's grant: it is not the server you paired with`);
    ws.close(1000, "untrusted server");
    return;
  }
  const settings = await loadSettings(browserInfo().name.toLowerCase());
  const params: Params<"system.handshake"> = {
    proof: toBase64url(await hmac(key, tr(REMOTE_LABELS.deviceExtension))),
    client: EXTENSION_CLIENT,
    version: browser.runtime.getManifest().version,
    protocol_version: PROTOCOL_VERSION,
    instance_id: settings.instance_id,
    browser: browserInfo(),
    label: settings.label,
    sessions: allSessions()
      .filter((s) => s.remote_host === g.host)
      .map((s) => ({
        session_id: s.session_id,
        window_id: s.window_id,
        tab_ids: Object.keys(s.tabs).map(Number),
        current_tab_id: s.current_tab_id,
      })),
  };
  const reply = await request(ws, "system.handshake", params, HANDSHAKE_TIMEOUT_MS);
  if (ws !== remoteState.socket) return;
  if ("error" in reply) {
    await setStatus(g, "disconnected", refusalOf(reply));
    return;
  }
  const shook = reply.result as Result<"system.handshake">;
  remoteState.backoff = BACKOFF_MIN_MS;
  remoteState.trusted = ws;
  await setStatus(g, "connected");
  clearInterval(remoteState.heartbeatTimer);
  const beat = () =>
    send(ws, { event: "system.heartbeat", payload: { sessions: allSessions().filter((s) => s.remote_host === g.host).length } });
  remoteState.heartbeatTimer = setInterval(beat, Math.min(Math.max(1000, shook.heartbeat_ms), HEARTBEAT_MAX_MS));
  for (const ended of shook.ended) if (getSession(ended.session_id)?.remote_host === g.host) await closeSession(ended.session_id);
  void renewIfDue();
}

function onMessage(ws: WebSocket, text: string): void {
  const parsed = parseFrame(text);
  if (!parsed.ok) return;
  const { kind, frame } = parsed.value;
  if (kind === "response") remoteState.awaiting.get(frame.id ?? "")?.(frame);
  // Requests only once the server has proven the grant and taken our handshake; the host marks the call remote.
  else if (kind === "request" && ws === remoteState.trusted) {
    void loadGrant().then((g) => {
      if (g && ws === remoteState.trusted) void serveRequest(ws, frame, remoteState.inflight, { remoteHost: g.host });
    });
  }
}

/** Pair with a pasted link (popup, after the person confirmed host and key): store the grant, then connect. */
export async function pairRemoteLink(text: string): Promise<AuthorizeOutcome | { ok: true; host: string; device_id: string }> {
  const settings = await loadSettings(browserInfo().name.toLowerCase());
  const b = browserInfo();
  const outcome = await pairRemote(text, { label: settings.label, browser: { name: b.name, version: b.version } });
  if (!outcome.ok) return outcome;
  await forgetRemoteSessions();
  await saveGrant(outcome.grant);
  remoteState.stopped = null;
  await connectRemote({ force: true });
  return { ok: true, host: outcome.grant.host, device_id: outcome.grant.device_id };
}

/** Disconnect (popup): close the link, end the remote agent's sessions here, and forget the grant. */
export async function disconnectRemote(): Promise<void> {
  if (remoteState.socket) retire(remoteState.socket);
  clearTimeout(remoteState.retryTimer);
  await forgetRemoteSessions();
  await clearGrant();
  remoteState.stopped = null;
  await setStatus(null, "disconnected");
}

async function forgetRemoteSessions(): Promise<void> {
  for (const s of allSessions()) if (s.remote_host !== undefined) await closeSession(s.session_id).catch(() => undefined);
}

/** Renew once renew_after has passed (start-up, each connect, the alarm); a failure keeps the old grant until it expires. */
export function renewIfDue(): Promise<void> {
  remoteState.renewing ??= (async () => {
    const g = await loadGrant();
    if (!g || remoteState.stopped || Date.parse(g.renew_after) > Date.now() || Date.parse(g.expires_at) <= Date.now()) return;
    const outcome = await renewRemote(g);
    if (!outcome.ok) {
      console.warn(`bsk: renewing the grant for ${g.host} failed: ${outcome.error}`);
      return;
    }
    // Another pairing may have replaced the grant meanwhile: only the one renewed is updated.
    const now = await loadGrant();
    if (now?.device_id !== g.device_id) return;
    await saveGrant(outcome.grant);
    const status = (await browser.storage.session.get(SESSION.remote).catch(() => ({}))) as Record<string, RemoteStatus | undefined>;
    await setStatus(outcome.grant, status[SESSION.remote]?.state ?? "connected");
  })().finally(() => {
    remoteState.renewing = null;
  });
  return remoteState.renewing;
}
