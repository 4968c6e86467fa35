/**
 * The private key files, trust.key and link.key: random bytes, base64url, 0600 in a 0700 folder. Made once by whoever needs it first; two first
 * users agree on one key (written whole under a temporary name, then linked into place: a reader never sees half a
 * key, and of two first users exactly one link succeeds, the other reads the winner's).
 */
import { readFileSync, statSync } from "node:fs";
import { BskError } from "../protocol/errors.ts";
import { fromBase64url, toBase64url } from "../protocol/trust.ts";
import { writeAtomic } from "./atomic-file.ts";
import { ensurePrivateDir } from "./fs-util.ts";
import type { HomePaths } from "./home.ts";
import { LINK_KEY_BYTES } from "./link-proof.ts";

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

/** The daemon's link.key (link-proof.ts): read or make it; a key another user could read or swap is refused (fail closed). */
export function ensureLinkKey(paths: HomePaths): Uint8Array {
  const bytes = ensureKeyFile(paths.linkKey, paths.home, LINK_KEY_BYTES, "bsk link key");
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid !== undefined) {
    const st = statSync(paths.linkKey);
    if (st.uid !== uid || st.mode & 0o077)
      throw new BskError(
        "permission_denied",
        `${paths.linkKey} is not this user's alone (uid ${st.uid}, mode ${(st.mode & 0o777).toString(8)})`,
        {
          hint: `Remove ${paths.linkKey} (another user may have read it) and start the daemon again: it makes a new one.`,
          data: { reason: "untrusted_link_key", path: paths.linkKey },
        },
      );
  }
  return bytes;
}
