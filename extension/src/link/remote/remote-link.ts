/**
 * The remote link: one WebSocket to a bsk server (wss://HOST[:PORT]/extension) beside the local link, a `Link`
 * (../daemon-link.ts) with the remote specifics — the device grant; the server proves the device's secret first
 * (system.hello with device_id and generation; protocol/remote.ts), only then do we prove it; back-off 500 ms → 30 s;
 * the sessions of the agent on that host; renewal once `renew_after` passed. A server that says the device is not
 * paired, that its grant expired (or closes with 4009), or that revoked it (close 4008) stops the reconnect loop: the
 * popup asks the person to pair again. Its status is `SESSION.remote` (RemoteStatus); forgetting the grant drops
 * its event stream.
 */
import { browser } from "wxt/browser";
import type { ErrorBody } from "../../../../protocol/errors.ts";
import { REMOTE_LABELS, remoteTranscript } from "../../../../protocol/remote.ts";
import { fromBase64url, hmac, importHmacKey, NONCE_BYTES, randomBase64url, toBase64url, verifyHmac } from "../../../../protocol/trust.ts";
import { PROTOCOL_VERSION } from "../../../../protocol/version.ts";
import { dropStream, setEventRouter } from "../../ports/outbox.ts";
import { setLinkRouter } from "../../ports/to-daemon.ts";
import { allSessions, closeSession, getSession, sessionsReady } from "../../session/sessions.ts";
import { loadSettings, SESSION, type RemoteReason, type RemoteState, type RemoteStatus } from "../../session/settings.ts";
import { browserId, Link, type ConnectOptions, type Plan } from "../daemon-link.ts";
import { pairRemote, renewRemote, type AuthorizeOutcome } from "./authorize.ts";
import { clearGrant, loadGrant, saveGrant, type RemoteGrant } from "./grant-store.ts";
import { readRefusal, stopReason } from "./stop-reason.ts";

/** The remote link's own state beside its `Link`. */
const remoteState = {
  /** Set by a refusal (not paired, expired, revoked): no reconnect until the person pairs again. */
  stopped: null as RemoteState | null,
  /** Why the server refused the last hello or handshake (its error's data.reason). */
  lastRefusal: undefined as string | undefined,
  renewing: null as Promise<void> | null,
};

async function setStatus(g: RemoteGrant | null, state: RemoteState, error?: string, reason?: RemoteReason): Promise<void> {
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
    ...(reason !== undefined && { reason }),
    since: Date.now(),
  };
  await browser.storage.session.set({ [SESSION.remote]: status }).catch(() => undefined);
}

function refusalOf(error: ErrorBody | undefined): [string, RemoteReason] {
  const r = readRefusal(error);
  remoteState.lastRefusal = r.reason;
  return [r.text, r.code];
}

const STOP_TEXT: Record<"revoked" | "expired" | "refused", [(host: string) => string, RemoteReason]> = {
  revoked: [(h) => `revoked by the server ${h} — pair again`, "revoked"],
  expired: [(h) => `the grant for ${h} expired — pair again`, "expired"],
  refused: [(h) => `${h} does not know this browser (revoked or forgotten) — pair again`, "not_paired"],
};

const remote = new Link<RemoteGrant>({
  id: "remote",
  backoff: { minMs: 500, maxMs: 30_000 },
  plan,
  async prove(g, request) {
    const secret = fromBase64url(g.secret);
    if (!secret) return { ok: false, close: "damaged grant" };
    const key = await importHmacKey(secret);
    const nonceE = randomBase64url(NONCE_BYTES);
    const hello = await request("system.hello", {
      protocol_version: PROTOCOL_VERSION,
      nonce: nonceE,
      device_id: g.device_id,
      generation: g.generation,
    });
    if ("error" in hello) {
      await setStatus(g, "disconnected", ...refusalOf(hello.error as ErrorBody));
      return { ok: false };
    }
    const result = hello.result as { nonce?: unknown; proof?: unknown } | undefined;
    const nonceD = typeof result?.nonce === "string" ? result.nonce : "";
    const tr = (label: string) => remoteTranscript(label, g.authority, nonceE, nonceD, g.device_id);
    if (!nonceD || !(await verifyHmac(key, tr(REMOTE_LABELS.deviceDaemon), result?.proof))) {
      // Whoever answers at that address is not the server that paired us: it gets nothing more.
      await setStatus(g, "untrusted", `${g.host} could not prove this browser's grant: it is not the server you paired with`, "untrusted");
      return { ok: false, untrusted: true, close: "untrusted server" };
    }
    return { ok: true, proof: toBase64url(await hmac(key, tr(REMOTE_LABELS.deviceExtension))) };
  },
  owns: (s, g) => s.remote_host === g.host,
  origin: (g) => ({ remoteHost: g.host }),
  show: (g, state, { error, reason }) => setStatus(g, state, error, reason as RemoteReason | undefined),
  refused: (g, error) => setStatus(g, "disconnected", ...refusalOf(error)),
  async closed(g, code, reason) {
    const stop = stopReason(code, remoteState.lastRefusal ?? reason);
    if (!stop) return code === 1006 ? { error: `cannot reach ${g.host} (network or certificate)`, reason: "network" } : {};
    remoteState.stopped = stop;
    const [text, why] = STOP_TEXT[stop];
    await setStatus(g, stop, text(g.host), why);
    return { stop: true };
  },
  up: () => void renewIfDue(),
});

async function plan(_opts: ConnectOptions): Promise<Plan<RemoteGrant>> {
  const g = await loadGrant();
  if (!g || remoteState.stopped) return { off: true };
  if (Date.parse(g.expires_at) <= Date.now()) {
    remoteState.stopped = "expired";
    await setStatus(g, "expired", `the grant for ${g.host} expired: pair again`, "expired");
    return { off: true };
  }
  remoteState.lastRefusal = undefined;
  return { key: `${g.url}#${g.device_id}`, url: g.url, ctx: g };
}

/** A remote agent's session belongs to the remote link: its events and its requests (transfers) go there only. */
export function installRemoteRouting(): void {
  const isRemote = (sessionId: string) => getSession(sessionId)?.remote_host !== undefined;
  setEventRouter((sessionId) => {
    const s = getSession(sessionId);
    return s === undefined ? undefined : s.remote_host !== undefined ? "remote" : "local";
  }, sessionsReady());
  setLinkRouter((sessionId) => (isRemote(sessionId) ? remote.caller() : undefined));
}

/** Opens the remote link when a grant is stored and none is open; `force` replaces an open one. */
export function connectRemote(opts: { force?: boolean; retry?: boolean } = {}): Promise<void> {
  return remote.connect(opts);
}

/** Pair with a pasted link (popup, after the person confirmed host and key): store the grant, then connect. */
export async function pairRemoteLink(text: string): Promise<AuthorizeOutcome | { ok: true; host: string; device_id: string }> {
  const b = browserId();
  const settings = await loadSettings(b.name.toLowerCase());
  const outcome = await pairRemote(text, { label: settings.label, browser: { name: b.name, version: b.version } });
  if (!outcome.ok) return outcome;
  remote.close("paired again");
  await forgetRemote();
  await saveGrant(outcome.grant);
  remoteState.stopped = null;
  // Paired is the answer now: the link comes up on its own (the Links list shows it); a slow or queued connect must
  // not hold the person's "paired" behind it.
  void connectRemote({ force: true });
  return { ok: true, host: outcome.grant.host, device_id: outcome.grant.device_id };
}

/** Disconnect (popup): close the link, end the remote agent's sessions here, and forget the grant. */
export async function disconnectRemote(): Promise<void> {
  remote.close("disconnected by the person");
  await forgetRemote();
  await clearGrant();
  remoteState.stopped = null;
  await setStatus(null, "disconnected");
}

/** The old grant's sessions end here, and what they emitted that its server never took is dropped with it. */
async function forgetRemote(): Promise<void> {
  for (const s of allSessions()) if (s.remote_host !== undefined) await closeSession(s.session_id).catch(() => undefined);
  await dropStream("remote");
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
