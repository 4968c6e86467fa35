/**
 * `$BSK_HOME/link.key`, the CLI's side: read once per call (the daemon makes it: ensureLinkKey in key-file.ts).
 * Its own key, not trust.key: that one also lives in the browser's extension storage (and on paired remote devices),
 * this one never leaves this user's home. Only node:fs: the CLI loads this when it reaches a daemon.
 */
import { readFileSync } from "node:fs";
import { LINK_KEY_BYTES, linkKeyUnreadable } from "./link-proof.ts";

let cached: { path: string; key: Uint8Array } | undefined;

/** A daemon's proof did not match: a long-lived caller (bsk mcp) reads the key again next time (a new daemon may
 * have made a new one). */
export function forgetLinkKey(): void {
  cached = undefined;
}

/** The CLI's: the key, read once per process (no base64 regular expression on the call's path). */
export function readLinkKey(path: string): Uint8Array {
  if (cached?.path === path) return cached.key;
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (err) {
    throw linkKeyUnreadable(path, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
  }
  // The web's base64 methods, not Buffer's: Buffer costs ~0.5 ms to set up on every call.
  let key: Uint8Array | undefined;
  try {
    key = Uint8Array.fromBase64(text, { alphabet: "base64url" });
  } catch {}
  if (key?.length !== LINK_KEY_BYTES || key.toBase64({ alphabet: "base64url", omitPadding: true }) !== text)
    throw linkKeyUnreadable(path, "it does not hold a bsk link key");
  cached = { path, key };
  return key;
}
