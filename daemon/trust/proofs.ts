/** The daemon's side of the link proofs (protocol/trust.ts), with node:crypto: synchronous and constant-time. */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { fromBase64url, LABELS, normalizeCode, toBase64url, transcript, xorBytes } from "../../protocol/trust.ts";

function mac(key: Uint8Array, text: string): Uint8Array {
  return new Uint8Array(createHmac("sha256", key).update(text).digest());
}

function equalMac(expected: Uint8Array, given: unknown): boolean {
  const bytes = fromBase64url(given);
  return !!bytes && bytes.length === expected.length && timingSafeEqual(bytes, expected);
}

export interface Nonces {
  port: number;
  nonceE: string;
  nonceD: string;
}

export function daemonProof(secret: Uint8Array, n: Nonces): string {
  return toBase64url(mac(secret, transcript(LABELS.daemonProof, n.port, n.nonceE, n.nonceD)));
}

export function checkExtensionProof(secret: Uint8Array, n: Nonces, proof: unknown): boolean {
  return equalMac(mac(secret, transcript(LABELS.extensionProof, n.port, n.nonceE, n.nonceD)), proof);
}

/** K for a pairing code (the extension derives the same from what the person typed). */
export function pairingKeyBytes(code: string): Uint8Array {
  return new Uint8Array(
    createHash("sha256")
      .update(`${LABELS.pairingKey}\n${normalizeCode(code)}`)
      .digest(),
  );
}

export function pairDaemonProof(k: Uint8Array, n: Nonces): string {
  return toBase64url(mac(k, transcript(LABELS.pairDaemon, n.port, n.nonceE, n.nonceD)));
}

export function checkPairExtensionProof(k: Uint8Array, n: Nonces, proof: unknown): boolean {
  return equalMac(mac(k, transcript(LABELS.pairExtension, n.port, n.nonceE, n.nonceD)), proof);
}

export function sealSecret(k: Uint8Array, n: Nonces, secret: Uint8Array): string {
  return toBase64url(xorBytes(secret, mac(k, transcript(LABELS.pairSeal, n.port, n.nonceE, n.nonceD))));
}
