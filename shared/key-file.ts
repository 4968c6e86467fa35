/**
 * A private key file: random bytes, base64url, 0600 in a 0700 folder. Made once by whoever needs it first; two first
 * users agree on one key (written whole under a temporary name, then linked into place: a reader never sees half a
 * key, and of two first users exactly one link succeeds, the other reads the winner's).
 */
import { readFileSync } from "node:fs";
import { fromBase64url, toBase64url } from "../protocol/trust.ts";
import { writeAtomic } from "./atomic-file.ts";
import { ensurePrivateDir } from "./fs-util.ts";

/** The key in `text` when it is `size` bytes of base64url, else null. */
export function parseKey(text: string, size: number): Uint8Array | null {
  const bytes = fromBase64url(text.trim());
  return bytes && bytes.length === size ? bytes : null;
}

/** Reads the key, creating it when the file does not exist. Throws when it exists but is not such a key. */
export function ensureKeyFile(path: string, dir: string, size: number, what: string): Uint8Array {
  ensurePrivateDir(dir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const bytes = parseKey(readFileSync(path, "utf8"), size);
      if (!bytes) throw new Error(`${path} does not hold a ${what}; move it aside to make a new one`);
      return bytes;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const bytes = crypto.getRandomValues(new Uint8Array(size));
    try {
      writeAtomic(path, `${toBase64url(bytes)}\n`, { mode: 0o600, replace: false });
      return bytes;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new Error(`could not read or create ${path}`);
}
