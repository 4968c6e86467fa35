/**
 * `$BSK_HOME/link.key`: the key of the CLI link's proof (link-proof.ts). Its own key, not trust.key: that one also
 * lives in the browser's extension storage (and on paired remote devices), this one never leaves this user's home.
 * The daemon makes it (0600) before it listens and refuses to start when another user could read it; the CLI reads
 * it once per call.
 */
import { readFileSync, statSync } from "node:fs";
import { BskError } from "../protocol/errors.ts";
import { ensureKeyFile } from "./key-file.ts";
import type { HomePaths } from "./home.ts";
import { LINK_KEY_BYTES, linkKeyUnreadable } from "./link-proof.ts";

/** The daemon's: read or make the key; a key another user could read or swap is refused (fail closed). */
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

let cached: { path: string; key: Uint8Array } | undefined;

/** The CLI's: the key, read once per process (no base64 regular expression on the call's path). */
export function readLinkKey(path: string): Uint8Array {
  if (cached?.path === path) return cached.key;
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (err) {
    throw linkKeyUnreadable(path, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
  }
  const key = new Uint8Array(Buffer.from(text, "base64url"));
  if (key.length !== LINK_KEY_BYTES || Buffer.from(key).toString("base64url") !== text)
    throw linkKeyUnreadable(path, "it does not hold a bsk link key");
  cached = { path, key };
  return key;
}
