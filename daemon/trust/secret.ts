/**
 * This install's secret: 32 random bytes in `$BSK_HOME/trust.key` (0600, base64url). Made once, by whoever needs it
 * first (the daemon at start, or the native messaging host); two first users agree on one secret.
 * Never logged; only its key id (a MAC of a fixed label) is shown.
 */
import { createHmac } from "node:crypto";
import { LABELS, SECRET_BYTES } from "../../protocol/trust.ts";
import { ensureKeyFile } from "../../shared/key-file.ts";

export interface InstallSecret {
  bytes: Uint8Array;
  /** Public name (8 hex) shown by status and the popup. */
  keyId: string;
}

export function keyIdFor(bytes: Uint8Array): string {
  return createHmac("sha256", bytes).update(LABELS.keyId).digest("hex").slice(0, 8);
}

/** Reads the secret, creating it when the file does not exist. Throws when it exists but is not a secret. */
export function ensureSecret(path: string, dir: string): InstallSecret {
  const bytes = ensureKeyFile(path, dir, SECRET_BYTES, "bsk secret");
  return { bytes, keyId: keyIdFor(bytes) };
}
