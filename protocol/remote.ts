/**
 * Remote mode's vocabulary: the extension dials a daemon in server mode (daemon/remote/) over TLS, so the person's
 * computer opens no port. Pure data and transcripts; both sides MAC them (the daemon with node:crypto, the extension
 * with WebCrypto, protocol/trust.ts).
 *
 * Pairing link (printed once by `bsk daemon pair` on the server, pasted into the popup):
 *   wss://HOST[:PORT]/extension#pair=XXXX-XXXX-XXXX&key=KEYID
 * The code rides in the fragment, which no browser or proxy sends anywhere. KEYID is the server's key fingerprint,
 * shown to the person before they confirm.
 *
 * Authorize (HTTPS POST to the public URL's path + "/authorize"; proofs in the Authorization header, never in a URL):
 *   pair-begin  nonce=Ne                    → {challenge, nonce: Nd, key_id, proof: HMAC(K, PAIR_DAEMON | A | Ne | Nd | key_id)}
 *   pair-finish challenge=C, proof=HMAC(K, PAIR_EXTENSION | A | Ne | Nd), body {label, browser}
 *                                           → {device_id, sealed_secret: D xor HMAC(K, SEAL | A | Ne | Nd), expires_at, renew_after}
 *   renew-begin device=I, nonce=Ne          → {challenge, nonce: Nd, proof: HMAC(D, RENEW_DAEMON | A | Ne | Nd | I)}
 *   renew-finish challenge=C, proof=HMAC(D, RENEW_EXTENSION | A | Ne | Nd | I)
 *                                           → {device_id, sealed_secret: D' xor HMAC(D, SEAL | A | Ne | Nd | I), expires_at, renew_after}
 * K = SHA-256(PAIRING_KEY | code) (protocol/trust.ts); A = the public URL's authority (host:port) as the person pasted
 * it; D = the device's secret. The server proves first each time; a challenge is answered once (a replayed finish is
 * refused); the code is burnt by its first pair-begin; renewal rotates D (the old one stops working once the new one
 * is used, or after a short grace).
 *
 * Link (wss://HOST/extension): system.hello carries device_id; the proofs are those of a local link (protocol/trust.ts)
 * keyed by D over DEVICE_* labels and A instead of the port.
 */
import { formatCode, isWellFormedCode, normalizeCode } from "./trust.ts";

export const REMOTE_LABELS = {
  pairDaemon: "bsk-remote-pair-daemon/1",
  pairExtension: "bsk-remote-pair-extension/1",
  seal: "bsk-remote-seal/1",
  renewDaemon: "bsk-remote-renew-daemon/1",
  renewExtension: "bsk-remote-renew-extension/1",
  deviceDaemon: "bsk-remote-device-daemon/1",
  deviceExtension: "bsk-remote-device-extension/1",
  deviceSecret: "bsk-remote-device-secret/1",
} as const;

/** The path of the extension link; authorize is this + "/authorize". */
export const REMOTE_LINK_PATH = "/extension";
export const AUTHORIZE_PATH = "/extension/authorize";

/** The bytes a remote proof MACs: a label, the authority, both nonces, then anything the step binds (key id, device). */
export function remoteTranscript(label: string, authority: string, nonceE: string, nonceD: string, ...bound: string[]): string {
  return [label, authority, nonceE, nonceD, ...bound].join("\n");
}

export interface PairingLink {
  /** wss://host[:port]/extension, as the extension dials it. */
  url: string;
  /** host:port (the port always written). */
  authority: string;
  host: string;
  code: string;
  keyId: string;
}

/** The public URL's authority with its port always written (443 when the URL has none). */
export function authorityOf(url: URL): string {
  return `${url.hostname}:${url.port || "443"}`;
}

/** A public URL for remote links: wss://HOST[:PORT]/extension, nothing else (no user, query or fragment). */
export function parsePublicUrl(text: string): { ok: true; url: URL } | { ok: false; why: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, why: "not a URL" };
  }
  if (url.protocol !== "wss:") return { ok: false, why: "the scheme must be wss:" };
  if (url.pathname !== REMOTE_LINK_PATH) return { ok: false, why: `the path must be ${REMOTE_LINK_PATH}` };
  if (url.username || url.password || url.search || url.hash) return { ok: false, why: "no user, query string or fragment" };
  return { ok: true, url };
}

export function formatPairingLink(publicUrl: string, code: string, keyId: string): string {
  return `${publicUrl}#pair=${formatCode(normalizeCode(code))}&key=${keyId}`;
}

export function parsePairingLink(text: string): { ok: true; link: PairingLink } | { ok: false; why: string } {
  const trimmed = text.trim();
  const hash = trimmed.indexOf("#");
  if (hash < 0) return { ok: false, why: "the link has no pairing code (#pair=…)" };
  const base = parsePublicUrl(trimmed.slice(0, hash));
  if (!base.ok) return base;
  const fragment = new URLSearchParams(trimmed.slice(hash + 1));
  const code = normalizeCode(fragment.get("pair") ?? "");
  const keyId = fragment.get("key") ?? "";
  if (!isWellFormedCode(code)) return { ok: false, why: "the pairing code is not well formed" };
  if (!/^[0-9a-f]{8}$/.test(keyId)) return { ok: false, why: "the key fingerprint is not well formed" };
  const url = base.url;
  return { ok: true, link: { url: url.href, authority: authorityOf(url), host: url.hostname, code, keyId } };
}

/** `Bsk <step> k="v", k="v"`: the Authorization header of an authorize step. */
export type AuthorizeStep = "pair-begin" | "pair-finish" | "renew-begin" | "renew-finish";
const STEPS: readonly AuthorizeStep[] = ["pair-begin", "pair-finish", "renew-begin", "renew-finish"];

export function formatAuthorization(step: AuthorizeStep, fields: Record<string, string>): string {
  return `Bsk ${step} ${Object.entries(fields)
    .map(([k, v]) => `${k}="${v}"`)
    .join(", ")}`;
}

/** Null for anything that is not exactly one well-formed Bsk step (values are base64url or ids: no quotes inside). */
export function parseAuthorization(header: string | null): { step: AuthorizeStep; fields: Record<string, string> } | null {
  if (!header || header.length > 2048) return null;
  const m = /^Bsk ([a-z-]+) (.*)$/.exec(header);
  if (!m || !STEPS.includes(m[1] as AuthorizeStep)) return null;
  const fields: Record<string, string> = {};
  for (const part of m[2]!.split(/,\s*/)) {
    const kv = /^([a-z_]+)="([A-Za-z0-9_.-]{1,128})"$/.exec(part);
    if (!kv || kv[1]! in fields) return null;
    fields[kv[1]!] = kv[2]!;
  }
  return { step: m[1] as AuthorizeStep, fields };
}

/** Device grants: valid this long from pairing or renewal; the extension renews once renew_after has passed. */
export const DEVICE_GRANT_MS = 90 * 24 * 3600_000;
export const DEVICE_RENEW_MS = 30 * 24 * 3600_000;
