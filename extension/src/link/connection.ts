/**
 * The WebSocket to the daemon: connect, prove trust both ways, handshake, heartbeat, reconnect; requests in,
 * replies and events out. Whatever listens on the port must first prove it holds this install's secret
 * (trust/prove.ts): until then it gets no handshake details, no answer to any request and no event. Malformed
 * frames from a proven daemon are logged and dropped.
 */
import { browser } from "wxt/browser";
import { setBskHome } from "../session/file-urls.ts";
import { BskError, type ErrorBody } from "../../../protocol/errors.ts";
import { parseFrame, type ResponseFrame } from "../../../protocol/frames.ts";
import type { Params, Result } from "../../../protocol/catalog.ts";
import { EXTENSION_CLIENT, PROTOCOL_VERSION } from "../../../protocol/version.ts";
import { raceAbort } from "../shared/abort.ts";
import { parseBrowser, type BrowserId } from "../shared/browser-info.ts";
import { send, serveRequest } from "./serve.ts";
import { onAck, outboxStream, setSink } from "../ports/outbox.ts";
import { linkDown, setDaemonLink, type DaemonLink } from "../ports/to-daemon.ts";
import { clearKey, loadKey, saveKey, type InstallKey } from "./trust/key-store.ts";
import { fetchSecretNative } from "./trust/native.ts";
import { pairWithCode } from "./trust/pairing.ts";
import { proveLink } from "./trust/prove.ts";
import { allSessions, closeSession, sessionsReady } from "../session/sessions.ts";
import { DEFAULT_PORT, loadSettings, SESSION, type ConnectionStatus, type Settings } from "../session/settings.ts";

const HANDSHAKE_TIMEOUT_MS = 10_000;
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 2_000;
/** After version_too_old: the daemon will not change its mind soon, so do not hammer it. */
const REFUSED_RETRY_MS = 30_000;
const HEARTBEAT_MAX_MS = 20_000;
/** After a daemon failed its proof, the secret is fetched again through native messaging at most this often. */
const NATIVE_REFRESH_MS = 30_000;
/** Not paired: native messaging is asked again after 1 s, doubling to 30 s (a host that failed once may answer next). */
const NOT_PAIRED_RETRY_MIN_MS = 1_000;
const NOT_PAIRED_RETRY_MAX_MS = 30_000;
/** The link's state: the socket, whom it trusts, retry timers, what the popup shows, requests in flight both ways. */
interface LinkState {
  notPairedRetry: number;
  socket: WebSocket | null;
  /** The socket whose daemon proved the secret and accepted our handshake: the only one served. */
  trusted: WebSocket | null;
  lastNativeRefresh: number;
  socketPort: number;
  backoff: number;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
  heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  /** Set when the daemon refused our protocol version; cleared by a successful handshake. */
  refused: boolean;
  status: ConnectionStatus;
  ownIds: number;
  /** Replies to the requests we send (the handshake). */
  awaiting: Map<string | number, (frame: ResponseFrame) => void>;
  /** The daemon's requests being worked on, by request id. */
  inflight: Map<string | number, AbortController>;
  /** Connect attempts run one after another, so two triggers never open two sockets. */
  chain: Promise<void>;
  /** The person disconnected the local link (popup): nothing reconnects it until a `resume`. */
  paused: boolean;
}
const linkState: LinkState = {
  notPairedRetry: NOT_PAIRED_RETRY_MIN_MS,
  socket: null,
  trusted: null,
  lastNativeRefresh: 0,
  socketPort: 0,
  backoff: BACKOFF_MIN_MS,
  retryTimer: undefined,
  heartbeatTimer: undefined,
  refused: false,
  status: { state: "disconnected", port: DEFAULT_PORT, since: Date.now() },
  ownIds: 0,
  awaiting: new Map<string | number, (frame: ResponseFrame) => void>(),
  inflight: new Map<string | number, AbortController>(),
  chain: Promise.resolve(),
  paused: false,
};

export function browserId(): BrowserId {
  const uaData = (navigator as Navigator & { userAgentData?: { brands: { brand: string; version: string }[] } }).userAgentData;
  return parseBrowser(navigator.userAgent, uaData?.brands);
}

function setStatus(next: Omit<ConnectionStatus, "since">): void {
  linkState.status = { ...next, since: Date.now() };
  browser.storage.session.set({ [SESSION.connection]: linkState.status }).catch(() => undefined);
}

/**
 * Opens the socket unless one is open or opening to the configured port. `force` replaces it anyway (the port or
 * label changed). Other triggers (alarm, start-up, the connect page) cancel a pending backoff and start over
 * from the shortest delay; only the backoff's own retries keep doubling it.
 */
export function connect(opts: { force?: boolean; retry?: boolean; resume?: boolean } = {}): Promise<void> {
  linkState.chain = linkState.chain.then(() => open(opts)).catch((err: unknown) => console.error("bsk: connect failed", err));
  return linkState.chain;
}

async function open(opts: { force?: boolean; retry?: boolean; resume?: boolean }): Promise<void> {
  const settings = await loadSettings(browserId().name.toLowerCase());
  await sessionsReady();
  clearTimeout(linkState.retryTimer);
  if (opts.resume) linkState.paused = false;
  if (linkState.paused) {
    if (linkState.socket) retire(linkState.socket, "disconnected by the person");
    setStatus({ state: "disconnected", port: settings.port, error: "disconnected from the popup" });
    return;
  }
  if (!opts.retry) linkState.backoff = BACKOFF_MIN_MS;
  const live = linkState.socket && (linkState.socket.readyState === WebSocket.CONNECTING || linkState.socket.readyState === WebSocket.OPEN);
  if (live && !opts.force && linkState.socketPort === settings.port) return;
  if (linkState.socket) retire(linkState.socket, "reconnecting");
  const key = await installKey();
  if (!key.ok) {
    // Nothing to prove a daemon with: stay off the network until paired; native messaging is asked again later.
    setStatus({ state: "not_paired", port: settings.port, error: key.error });
    linkState.retryTimer = setTimeout(() => void connect({ retry: true }), linkState.notPairedRetry);
    linkState.notPairedRetry = Math.min(linkState.notPairedRetry * 2, NOT_PAIRED_RETRY_MAX_MS);
    return;
  }
  linkState.notPairedRetry = NOT_PAIRED_RETRY_MIN_MS;
  const ws = new WebSocket(`ws://127.0.0.1:${settings.port}/extension`);
  linkState.socket = ws;
  linkState.socketPort = settings.port;
  // An untrusted daemon stays the state shown until one proves itself (no flicker through "connecting").
  if (linkState.status.state !== "untrusted" || linkState.status.port !== settings.port)
    setStatus({ state: "connecting", port: settings.port });
  ws.onopen = () => void handshake(ws, settings, key.key);
  ws.onmessage = (ev) => onMessage(ws, String(ev.data));
  ws.onclose = () => onClosed(ws);
}

/** Closes a socket we no longer want without scheduling a reconnect for it. */
function retire(ws: WebSocket, why: string): void {
  ws.onclose = null;
  ws.onmessage = null;
  ws.onopen = null;
  try {
    ws.close(1000, why);
  } catch {
    /* already closed */
  }
  if (linkState.socket === ws) lost();
}

/** This browser's pairing key: stored, or fetched once through native messaging. */
async function installKey(): Promise<{ ok: true; key: InstallKey } | { ok: false; error: string }> {
  const stored = await loadKey();
  if (stored) return { ok: true, key: stored };
  const native = await fetchSecretNative();
  if (native.ok) {
    try {
      return { ok: true, key: await saveKey(native.secret, "native") };
    } finally {
      native.secret.fill(0);
    }
  }
  return {
    ok: false,
    error: `not paired with bsk: run \`bsk native install\` (native messaging: ${native.error}) or enter a code from \`bsk daemon pair\``,
  };
}

/**
 * A daemon failed its proof. If the person made a new secret (a fresh $BSK_HOME), native messaging has it: fetch
 * it (rarely) and say whether it changed, so the caller retries at once.
 */
async function refreshedKey(current: InstallKey): Promise<boolean> {
  if (Date.now() - linkState.lastNativeRefresh < NATIVE_REFRESH_MS) return false;
  linkState.lastNativeRefresh = Date.now();
  const native = await fetchSecretNative();
  if (!native.ok) return false;
  try {
    const saved = await saveKey(native.secret, "native");
    return saved.key_id !== current.key_id;
  } finally {
    native.secret.fill(0);
  }
}

/** Pairing by code (popup): the new key replaces the old one and the link starts over. */
export async function pair(code: string): Promise<{ ok: boolean; key_id?: string; error?: string }> {
  const settings = await loadSettings(browserId().name.toLowerCase());
  const outcome = await pairWithCode(code, settings.port);
  if (outcome.ok) await connect({ force: true });
  return outcome;
}

/** Disconnect (popup): close the local link; it stays closed until the person asks to reconnect. */
export async function disconnectLocal(): Promise<void> {
  linkState.paused = true;
  await connect();
}

/** Forget this browser's pairing (popup): the link closes and nothing connects until it is paired again. */
export async function unpair(): Promise<void> {
  await clearKey();
  await connect({ force: true });
}

/** Shared by every way a socket ends: no more events to it, no work for it. */
function lost(): void {
  linkState.socket = null;
  linkState.trusted = null;
  setSink(null);
  setDaemonLink(null);
  clearInterval(linkState.heartbeatTimer);
  for (const ac of linkState.inflight.values()) ac.abort(new BskError("cancelled", "the connection to the daemon closed"));
  linkState.inflight.clear();
  for (const resolve of linkState.awaiting.values()) resolve({ id: null, error: { code: "protocol_error", message: "connection closed" } });
  linkState.awaiting.clear();
}

function onClosed(ws: WebSocket): void {
  if (ws !== linkState.socket) return;
  lost();
  if (linkState.refused) {
    linkState.retryTimer = setTimeout(() => void connect({ retry: true }), REFUSED_RETRY_MS);
    return;
  }
  if (linkState.status.state !== "untrusted") setStatus({ ...linkState.status, state: "disconnected", port: linkState.socketPort });
  linkState.retryTimer = setTimeout(() => void connect({ retry: true }), linkState.backoff);
  linkState.backoff = Math.min(linkState.backoff * 2, BACKOFF_MAX_MS);
}

/** Sends one of our own requests on `ws` and waits for its reply (or the timeout, which closes the socket unless `keep`). */
function request(ws: WebSocket, method: string, params: unknown, timeoutMs: number, keep = false): Promise<ResponseFrame> {
  const id = `e${++linkState.ownIds}`;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      linkState.awaiting.delete(id);
      resolve({ id, error: { code: "timeout", message: `no answer to ${method} within ${timeoutMs} ms` } });
      if (!keep) ws.close(4000, `${method} timed out`);
    }, timeoutMs);
    linkState.awaiting.set(id, (frame) => {
      clearTimeout(timer);
      linkState.awaiting.delete(id);
      resolve(frame);
    });
    send(ws, { id, method, params });
  });
}

/** A request of our own to the daemon on the trusted link `ws` (ports/to-daemon.ts); throws the daemon's error. */
function callOn(ws: WebSocket): DaemonLink {
  return async (method, params, timeoutMs, signal) => {
    if (ws !== linkState.trusted || ws.readyState !== WebSocket.OPEN) throw linkDown(method);
    const reply = await raceAbort(request(ws, method, params, timeoutMs, true), signal);
    if ("error" in reply) throw BskError.from(reply.error as ErrorBody);
    return reply.result;
  };
}

async function handshake(ws: WebSocket, settings: Settings, key: InstallKey): Promise<void> {
  const proven = await proveLink(key.key, settings.port, (method, params) => request(ws, method, params, HANDSHAKE_TIMEOUT_MS));
  if (ws !== linkState.socket) return;
  if (!proven.ok) {
    linkState.refused = proven.kind === "refused";
    const state = proven.kind === "untrusted" ? "untrusted" : linkState.refused ? "version_skew" : "disconnected";
    setStatus({ state, port: settings.port, error: proven.message, key_id: key.key_id });
    if (proven.kind === "untrusted") console.warn(`bsk: ${proven.message}`);
    ws.close(1000, proven.kind === "untrusted" ? "untrusted daemon" : "hello refused");
    if (proven.kind === "untrusted" && (await refreshedKey(key))) void connect();
    return;
  }
  const params: Params<"system.handshake"> = {
    proof: proven.proof,
    client: EXTENSION_CLIENT,
    version: browser.runtime.getManifest().version,
    protocol_version: PROTOCOL_VERSION,
    instance_id: settings.instance_id,
    browser: browserId(),
    label: settings.label,
    // Only the local daemon's own sessions: a remote agent's session is none of its business.
    sessions: allSessions()
      .filter((s) => s.remote_host === undefined)
      .map((s) => ({
        session_id: s.session_id,
        window_id: s.window_id,
        tab_ids: Object.keys(s.tabs).map(Number),
        current_tab_id: s.current_tab_id,
      })),
    event_stream: await outboxStream(),
  };
  const reply = await request(ws, "system.handshake", params, HANDSHAKE_TIMEOUT_MS);
  if (ws !== linkState.socket) return;
  if ("error" in reply) {
    const error = reply.error as ErrorBody;
    linkState.refused = error.code === "version_too_old";
    // A refusal's hint says which side to update and how; the popup shows it with the message.
    setStatus({
      state: linkState.refused ? "version_skew" : "disconnected",
      port: settings.port,
      error: error.hint ? `${error.message}. ${error.hint}` : error.message,
    });
    ws.close(1000, "handshake refused");
    return;
  }
  const result = reply.result as Result<"system.handshake">;
  linkState.refused = false;
  linkState.backoff = BACKOFF_MIN_MS;
  linkState.trusted = ws;
  // The next daemon that fails its proof may be a new secret: ask native messaging at once then.
  linkState.lastNativeRefresh = 0;
  setStatus({
    state: "connected",
    port: settings.port,
    daemon_version: result.version,
    protocol_version: result.protocol_version,
    skew: result.skew,
    key_id: key.key_id,
  });
  const beat = () =>
    send(ws, { event: "system.heartbeat", payload: { sessions: allSessions().filter((s) => s.remote_host === undefined).length } });
  clearInterval(linkState.heartbeatTimer);
  // Traffic at least every 20 s also keeps the service worker alive (it is stopped after 30 s idle).
  linkState.heartbeatTimer = setInterval(beat, Math.min(Math.max(1000, result.heartbeat_ms), HEARTBEAT_MAX_MS));
  setSink((frame) => send(ws, frame), result.events_acked ?? 0);
  setDaemonLink(callOn(ws));
  setBskHome(result.bsk_home);
  // Sessions the daemon could not take back are ended here, cleanly (their tabs closed one by one).
  for (const ended of result.ended) await closeSession(ended.session_id);
}

function onMessage(ws: WebSocket, text: string): void {
  const parsed = parseFrame(text);
  if (!parsed.ok) {
    console.warn(`bsk: dropped a frame from the daemon: ${parsed.message}`);
    return;
  }
  const { kind, frame } = parsed.value;
  if (kind === "response") linkState.awaiting.get(frame.id ?? "")?.(frame);
  else if (kind === "event" && frame.event === "system.ack" && ws === linkState.trusted)
    onAck(Number((frame.payload as { seq?: unknown } | null)?.seq));
  // Requests are served only once the daemon has proven the secret and taken our handshake; before that they
  // get no answer at all.
  else if (kind === "request" && ws === linkState.trusted) void serveRequest(ws, frame, linkState.inflight, {});
}
