/** URL helpers without chrome.*: what the agent typed → a URL to load, and URL patterns for wait_for. */
import { BskError } from "../../../protocol/errors.ts";

const LOCAL_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(:\d+)?(\/|$|\?|#)/i;
/** Schemes written without `//` that must not be mistaken for `host:port`. */
const OPAQUE_SCHEME =
  /^(about|data|blob|filesystem|javascript|mailto|view-source|chrome|chrome-extension|chrome-search|chrome-untrusted|devtools|edge):/i;

/**
 * `example.com/x` → `https://example.com/x`, `localhost:3000` → `http://localhost:3000`; a URL with a scheme is
 * kept. Throws invalid_params for what cannot be a URL and for `javascript:` (that is what evaluate is for).
 */
export function normalizeUrl(input: string): string {
  const text = input.trim();
  let url = text;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && !OPAQUE_SCHEME.test(text)) {
    url = `${LOCAL_HOST.test(text) ? "http" : "https"}://${text}`;
  }
  if (/^javascript:/i.test(url)) {
    throw new BskError("invalid_params", "javascript: URLs are not navigated", { hint: "Run script with bsk evaluate." });
  }
  try {
    new URL(url);
  } catch {
    throw new BskError("invalid_params", `not a URL: ${JSON.stringify(input)}`, {
      hint: "Give an absolute URL such as https://example.com/ or http://localhost:3000/.",
    });
  }
  return url;
}

/** A wait_for URL pattern: `/regex/flags`, a glob where `*` is any run of characters (whole URL), or a substring. */
export function urlMatcher(pattern: string): (url: string) => boolean {
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (regex) {
    let re: RegExp;
    try {
      re = new RegExp(regex[1]!, regex[2]!.replace(/[gy]/g, "")); // stateless test()
    } catch (err) {
      throw new BskError("invalid_params", `bad regular expression ${pattern}: ${(err as Error).message}`);
    }
    return (url) => re.test(url);
  }
  if (pattern.includes("*")) {
    const source = pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    const re = new RegExp(`^${source}$`, "s");
    return (url) => re.test(url);
  }
  return (url) => url.includes(pattern);
}

/**
 * A tab's URL as a session sees it when the tab is not lent to it (tab list --scope user|all): where it is, never
 * what the query, the fragment or the user info carry. `https://mail.example/inbox`, `data:text/html`, `about:blank`.
 */
export function outlineUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? "";
  }
  if (u.protocol === "data:") return `data:${u.pathname.split(/[,;]/)[0]}`;
  if (u.protocol === "blob:") return `blob:${URL.parse(u.pathname)?.origin ?? "null"}`;
  if (u.host || u.protocol === "file:") return `${u.protocol}//${u.host}${u.pathname}`;
  return u.protocol === "about:" ? `about:${u.pathname}` : u.protocol; // mailto:, javascript:, … carry their data in the path
}
