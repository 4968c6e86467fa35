/**
 * This install's secret: 32 random bytes in `$BSK_HOME/trust.key` (0600, base64url). Made once, by whoever needs it
 * first (the daemon at start, or the native messaging host); two first users agree on one secret.
 * Never logged; only its key id (a MAC of a fixed label) is shown.
 */
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { fromBase64url, LABELS, SECRET_BYTES, toBase64url } from "../../protocol/trust.ts";
import { writeAtomic } from "../../shared/atomic-file.ts";
import { ensurePrivateDir } from "../../shared/fs-util.ts";

export interface InstallSecret {
  bytes: Uint8Array;
  /** Public name (8 hex) shown by status and the popup. */
  keyId: string;
}

function parse(text: string): Uint8Array | null {
  const bytes = fromBase64url(text.trim());
  return bytes && bytes.length === SECRET_BYTES ? bytes : null;
}

export function keyIdFor(bytes: Uint8Array): string {
  return createHmac("sha256", bytes).update(LABELS.keyId).digest("hex").slice(0, 8);
}

/** Reads the secret, creating it when the file does not exist. Throws when it exists but is not a secret. */
export function ensureSecret(path: string, dir: string): InstallSecret {
  ensurePrivateDir(dir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const text = readFileSync(path, "utf8");
      const bytes = parse(text);
      if (!bytes) throw new Error(`${path} does not hold a bsk secret; move it aside to make a new one`);
      return { bytes, keyId: keyIdFor(bytes) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    // Written whole under a temporary name, then linked into place: a reader never sees half a secret, and of
    // two first users exactly one link succeeds (the other reads the winner's).
    const bytes = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
    try {
      writeAtomic(path, `${toBase64url(bytes)}\n`, { mode: 0o600, replace: false });
      return { bytes, keyId: keyIdFor(bytes) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new Error(`could not read or create ${path}`);
}
