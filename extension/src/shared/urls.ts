/** URL helpers without chrome.*: URL patterns for wait_for, a URL's outline (normalizeUrl is in protocol/urls.ts). */
import { BskError } from "../../../protocol/errors.ts";

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
