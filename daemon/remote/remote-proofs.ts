/** The daemon's side of remote mode's proofs (protocol/remote.ts), with node:crypto: constant-time checks. */
import { createHmac, timingSafeEqual } from "node:crypto";
import { remoteTranscript } from "../../protocol/remote.ts";
import { fromBase64url, toBase64url, xorBytes } from "../../protocol/trust.ts";

export interface RemoteNonces {
  authority: string;
  nonceE: string;
  nonceD: string;
}

function mac(key: Uint8Array, label: string, n: RemoteNonces, bound: string[]): Uint8Array {
  return new Uint8Array(
    createHmac("sha256", key)
      .update(remoteTranscript(label, n.authority, n.nonceE, n.nonceD, ...bound))
      .digest(),
  );
}

export function remoteProof(key: Uint8Array, label: string, n: RemoteNonces, ...bound: string[]): string {
  return toBase64url(mac(key, label, n, bound));
}

export function checkRemoteProof(key: Uint8Array, label: string, n: RemoteNonces, proof: unknown, ...bound: string[]): boolean {
  const given = fromBase64url(proof);
  const expected = mac(key, label, n, bound);
  return !!given && given.length === expected.length && timingSafeEqual(given, expected);
}

/** `secret` xor a MAC only the holder of `key` can compute: how a device secret travels. */
export function sealFor(key: Uint8Array, label: string, n: RemoteNonces, secret: Uint8Array, ...bound: string[]): string {
  return toBase64url(xorBytes(secret, mac(key, label, n, bound)));
}
