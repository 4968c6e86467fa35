/**
 * Origins for a session's allow-list (`session start --allow-origin`): what a person may type, and the canonical
 * `scheme://host[:port]` both the daemon (validation) and the extension (checks, blocking rules) compare.
 * Pure: no chrome.*, no node:*.
 */
import { BskError } from "./errors.ts";

/** `https://example.com`, `example.com` (https), `http://localhost:3000`, `https://example.com/` → canonical; else null. */
export function normalizeOrigin(text: string): string | null {
  const raw = text.trim();
  if (!raw) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  if (u.username || u.password || u.search || u.hash || (u.pathname !== "/" && u.pathname !== "")) return null;
  if (!u.hostname || u.hostname.includes("*")) return null;
  return u.origin;
}

/** The origin a URL's request goes to, for http(s) and ws(s) URLs (ws counts as its http twin); null for the rest. */
export function requestOrigin(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const scheme = { "http:": "http:", "https:": "https:", "ws:": "http:", "wss:": "https:" }[u.protocol];
  if (!scheme) return null;
  return `${scheme}//${u.host}`;
}

/**
 * Whether a session limited to `allowed` may load `url`. Only network URLs are limited: about:blank, data:, blob:
 * and the like never leave the browser. An empty or missing list allows everything.
 */
export function originAllowed(allowed: readonly string[] | undefined, url: string): boolean {
  if (!allowed || allowed.length === 0) return true;
  const origin = requestOrigin(url);
  return origin === null || allowed.includes(origin);
}

/** Throws permission_denied (origin_not_allowed) when a session limited to `allowed` may not load `url`. */
export function assertOriginAllowed(allowed: readonly string[] | undefined, url: string, data: Record<string, unknown> = {}): void {
  if (originAllowed(allowed, url)) return;
  throw new BskError("permission_denied", `${url} is outside this session's allowed origins (${allowed!.join(", ")})`, {
    data: { reason: "origin_not_allowed", url, allowed, ...data },
  });
}
