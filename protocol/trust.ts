/**
 * Trust between the extension and the daemon: what each side MACs to prove it holds this install's secret, and
 * what a pairing code proves. Pure WebCrypto (the extension and Bun both have it); the daemon uses node:crypto over
 * the same transcripts (a unit test checks both agree).
 *
 * Link proof (after the WebSocket opens, before anything else):
 *   extension → system.hello {nonce_e}            daemon → {nonce_d, proof: HMAC(secret, DAEMON_PROOF | port | nonce_e | nonce_d)}
 *   extension checks the proof, then → system.handshake {…, proof: HMAC(secret, EXTENSION_PROOF | port | nonce_e | nonce_d)}
 * The port is the one the extension dialed / the daemon listens on: a process squatting another port cannot relay a
 * real daemon's proof to the extension.
 *
 * Pairing (the person types a code from `bsk daemon pair` into the popup): the same exchange keyed by
 * K = SHA-256(PAIRING_KEY | code), then the daemon sends secret XOR HMAC(K, PAIRING_SEAL | port | nonce_e | nonce_d).
 * The daemon proves the code first; the extension never sends anything derived from the code to a peer that
 * has not proven it. The code is burnt by the try that pairs; wrong tries are limited per peer and in all
 * (daemon/trust/pairing-codes.ts) without using it up.
 */

export const SECRET_BYTES = 32;
export const NONCE_BYTES = 32;

export const LABELS = {
  daemonProof: "bsk-daemon-proof/2",
  extensionProof: "bsk-extension-proof/2",
  pairingKey: "bsk-pairing-code/2",
  pairDaemon: "bsk-pair-daemon/2",
  pairExtension: "bsk-pair-extension/2",
  pairSeal: "bsk-pair-seal/2",
  keyId: "bsk-key-id/2",
} as const;

/** The bytes a proof MACs: a label naming who proves what, the port, and both nonces. */
export function transcript(label: string, port: number, nonceE: string, nonceD: string): string {
  return `${label}\n${port}\n${nonceE}\n${nonceD}`;
}

/** Pairing codes: 12 symbols from 30 unambiguous ones (no I, L, O, U, 0, 1; about 59 bits), shown as XXXX-XXXX-XXXX. */
export const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789";
export const CODE_LENGTH = 12;

/** What the person typed → the canonical code (case, spaces and dashes do not matter). */
export function normalizeCode(input: string): string {
  return input.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

export function isWellFormedCode(code: string): boolean {
  return code.length === CODE_LENGTH && [...code].every((c) => CODE_ALPHABET.includes(c));
}

export function formatCode(code: string): string {
  return code.match(/.{1,4}/g)!.join("-");
}

// ---------------------------------------------------------------- base64url

export function toBase64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** null for anything that is not base64url. */
export function fromBase64url(text: unknown): Uint8Array | null {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export function randomBase64url(bytes: number): string {
  return toBase64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

const enc = new TextEncoder();

// ---------------------------------------------------------------- WebCrypto (extension side, and tests)

/** An HMAC-SHA256 key that cannot be read back (`extractable: false`). */
export function importHmacKey(raw: Uint8Array, extractable = false): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw as BufferSource, { name: "HMAC", hash: "SHA-256" }, extractable, ["sign", "verify"]);
}

export async function hmac(key: CryptoKey, text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(text)));
}

/** Constant-time check of a base64url MAC; anything malformed is false. */
export async function verifyHmac(key: CryptoKey, text: string, mac: unknown): Promise<boolean> {
  const bytes = fromBase64url(mac);
  if (bytes?.length !== 32) return false;
  try {
    return await crypto.subtle.verify("HMAC", key, bytes as BufferSource, enc.encode(text));
  } catch {
    return false;
  }
}

/** A short public name of a secret (first 8 hex of HMAC(secret, "bsk-key-id/2")), shown by status and the popup. */
export async function keyIdOf(key: CryptoKey): Promise<string> {
  const mac = await hmac(key, LABELS.keyId);
  return [...mac.slice(0, 4)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** K for a pairing code, as an HMAC key. */
export async function pairingKey(code: string): Promise<CryptoKey> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(`${LABELS.pairingKey}\n${normalizeCode(code)}`)));
  return importHmacKey(digest);
}

export function xorBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i % b.length]!;
  return out;
}
