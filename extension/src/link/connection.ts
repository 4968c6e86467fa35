/**
 * The local link: ws://127.0.0.1:<port>/extension to this machine's daemon, a `Link` (daemon-link.ts) with the local
 * specifics — the install's secret (native messaging or a pairing code) proven both ways, the daemon proving first
 * (trust/prove.ts); back-off 250 ms → 2 s; a version refusal retried every 30 s; a pause from the popup; the
 * sessions that are not a remote agent's. Its status is `SESSION.connection` (ConnectionStatus).
 */
import { browser } from "wxt/browser";
import { setBskHome } from "../session/file-urls.ts";
import { setDaemonLink } from "../ports/to-daemon.ts";
import { clearKey, loadKey, saveKey, type InstallKey } from "./trust/key-store.ts";
import { fetchSecretNative } from "./trust/native.ts";
import { type PairOutcome, pairWithCode } from "./trust/pairing.ts";
import { proveLink } from "./trust/prove.ts";
import { loadSettings, SESSION, type ConnectionState, type ConnectionStatus, type Settings } from "../session/settings.ts";
import { Backoff } from "./backoff.ts";
import { browserId, Link, type ConnectOptions, type Plan } from "./daemon-link.ts";

/** After version_too_old: the daemon will not change its mind soon, so do not hammer it. */
const REFUSED_RETRY_MS = 30_000;
/** After a daemon failed its proof, the secret is fetched again through native messaging at most this often. */
const NATIVE_REFRESH_MS = 30_000;

interface LocalDial {
  settings: Settings;
  key: InstallKey;
}

/** The local link's own state beside its `Link`: the status shown, the pause, the refusal, the native retries. */
const linkState = {
  status: { state: "disconnected", port: 0, since: Date.now() } as ConnectionStatus,
  /** The person disconnected the local link (popup): nothing reconnects it until a `resume`. */
  paused: false,
  /** Set when the daemon refused our protocol version; cleared by a successful handshake. */
  refused: false,
  lastNativeRefresh: 0,
  /** Not paired: native messaging is asked again after 1 s, doubling to 30 s (a host that failed once may answer next). */
  notPaired: new Backoff(1_000, 30_000),
};

function setStatus(next: Omit<ConnectionStatus, "since">): void {
  linkState.status = { ...next, since: Date.now() };
  browser.storage.session.set({ [SESSION.connection]: linkState.status }).catch(() => undefined);
}

const local = new Link<LocalDial>({
  id: "local",
  backoff: { minMs: 250, maxMs: 2_000 },
  plan,
  async prove({ settings, key }, request) {
    const proven = await proveLink(key.key, settings.port, request);
    if (proven.ok) return proven;
    linkState.refused = proven.kind === "refused";
    const state: ConnectionState = proven.kind === "untrusted" ? "untrusted" : linkState.refused ? "version_skew" : "disconnected";
    setStatus({ state, port: settings.port, error: proven.message, key_id: key.key_id });
    if (proven.kind !== "untrusted") return { ok: false, close: "hello refused" };
    console.warn(`bsk: ${proven.message}`);
    return { ok: false, untrusted: true, close: "untrusted daemon", retryNow: await refreshedKey(key) };
  },
  owns: (s) => s.remote_host === undefined,
  origin: () => ({}),
  async show({ settings, key }, state, { error, result }) {
    if (state === "connecting") setStatus({ state, port: settings.port });
    else if (state === "disconnected") setStatus({ ...linkState.status, state, port: settings.port, ...(error && { error }) });
    else
      setStatus({
        state,
        port: settings.port,
        daemon_version: result?.version,
        protocol_version: result?.protocol_version,
        skew: result?.skew,
        key_id: key.key_id,
      });
  },
  async refused({ settings }, error) {
    linkState.refused = error.code === "version_too_old";
    // A refusal's hint says which side to update and how; the popup shows it with the message.
    setStatus({
      state: linkState.refused ? "version_skew" : "disconnected",
      port: settings.port,
      error: error.hint ? `${error.message}. ${error.hint}` : error.message,
    });
  },
  closed: () => (linkState.refused ? { retryMs: REFUSED_RETRY_MS, keepStatus: true } : {}),
  up(_ctx, _ws, result) {
    linkState.refused = false;
    // The next daemon that fails its proof may be a new secret: ask native messaging at once then.
    linkState.lastNativeRefresh = 0;
    setDaemonLink(local.caller());
    setBskHome(result.bsk_home);
  },
  down: () => setDaemonLink(null),
});

async function plan(opts: ConnectOptions): Promise<Plan<LocalDial>> {
  const settings = await loadSettings(browserId().name.toLowerCase());
  if (opts.resume) linkState.paused = false;
  if (linkState.paused) {
    setStatus({ state: "disconnected", port: settings.port, error: "disconnected from the popup" });
    return { off: true };
  }
  const key = await installKey();
  if (!key.ok) {
    // Nothing to prove a daemon with: stay off the network until paired; native messaging is asked again later.
    setStatus({ state: "not_paired", port: settings.port, error: key.error });
    return { off: true, retryMs: linkState.notPaired.next() };
  }
  linkState.notPaired.reset();
  return { key: `${settings.port}:${key.key.key_id}`, url: `ws://127.0.0.1:${settings.port}/extension`, ctx: { settings, key: key.key } };
}

/**
 * Opens the local link unless it is open or opening to the configured port. `force` replaces it anyway (the port or
 * label changed); `resume` lifts the popup's Disconnect.
 */
export function connect(opts: ConnectOptions = {}): Promise<void> {
  return local.connect(opts);
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
export async function pair(code: string): Promise<PairOutcome> {
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
