/**
 * The scope rule, as pure functions (no chrome.* here, so bun test can import it):
 * a session touches only the tabs it owns, and never a restricted URL.
 */
import { BskError } from "../../../protocol/errors.ts";

/** How a session came to own a tab. */
export type Ownership = "created" | "opened" | "borrowed";

/** What the rule needs to know about one session. */
export interface OwnedTabs {
  session_id: string;
  tabs: Record<string, Ownership>;
}

export type TabOwner =
  | { owner: "session"; ownership: Ownership }
  | { owner: "other_session"; session_id: string; ownership: Ownership }
  | { owner: "person" };

/** Who owns `tabId`, as seen by the session `callerId`. */
export function ownerOf(tabId: number, callerId: string, sessions: Iterable<OwnedTabs>): TabOwner {
  for (const s of sessions) {
    const ownership = s.tabs[String(tabId)];
    if (!ownership) continue;
    return s.session_id === callerId ? { owner: "session", ownership } : { owner: "other_session", session_id: s.session_id, ownership };
  }
  return { owner: "person" };
}

/**
 * Throws unless the session may act on the tab. `exists` is whether the browser knows the tab id.
 * Another session's tab is refused exactly like a person's: the error never names the other session.
 */
export function assertOwned(tabId: number, callerId: string, sessions: Iterable<OwnedTabs>, exists: boolean): Ownership {
  const who = ownerOf(tabId, callerId, sessions);
  if (who.owner === "session") {
    if (!exists) throw new BskError("not_found", `tab ${tabId} is closed`, { data: { tab_id: tabId } });
    return who.ownership;
  }
  if (!exists) throw new BskError("not_found", `no tab ${tabId}`, { data: { tab_id: tabId } });
  throw new BskError("permission_denied", `tab ${tabId} is not this session's`, {
    data: { reason: "agent_window_scope", tab_id: tabId },
  });
}

/** Schemes no session may automate, whatever the tab. */
const RESTRICTED_SCHEMES = new Set([
  "chrome:",
  "chrome-extension:",
  "chrome-search:",
  "chrome-untrusted:",
  "devtools:",
  "view-source:",
  "filesystem:",
  "edge:",
  "brave:",
  "opera:",
  "vivaldi:",
]);

const ALLOWED_ABOUT = new Set(["blank", "srcdoc"]);

/** Store pages: Chromium itself refuses scripting there, and they install software. */
const STORE_PREFIXES = [
  "https://chrome.google.com/webstore",
  "https://chromewebstore.google.com",
  "https://microsoftedge.microsoft.com/addons",
];

/**
 * `file:` is restricted unless `fileAllowed` (the person's popup switch, guard/file-urls.ts decides); a `blob:` is
 * restricted unless it belongs to a web origin (a blob of a file: page or an extension page is not the agent's).
 */
export function isRestrictedUrl(url: string, fileAllowed = false): boolean {
  const text = url.trim();
  if (text === "") return false;
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(text)?.[1]?.toLowerCase();
  if (!scheme) return false;
  if (RESTRICTED_SCHEMES.has(scheme)) return true;
  if (scheme === "file:") return !fileAllowed;
  if (scheme === "blob:") {
    const inner = URL.parse(text.slice(5))?.protocol;
    return inner !== "http:" && inner !== "https:";
  }
  if (scheme === "about:") {
    const what = text.slice(6).split(/[?#]/)[0]!.toLowerCase();
    return !ALLOWED_ABOUT.has(what);
  }
  if (scheme === "https:" || scheme === "http:") {
    let normal: string;
    try {
      const u = new URL(text);
      normal = `https://${u.host.toLowerCase()}${u.pathname}`;
    } catch {
      return false;
    }
    return STORE_PREFIXES.some((p) => normal === p || normal.startsWith(`${p}/`));
  }
  return false;
}

/** `rule` names the file: URL rule that refused it (guard/file-urls.ts), with its own hint. */
export function restrictedUrlError(url: string, tabId?: number, rule?: { rule: string; hint: string }): BskError {
  return new BskError("permission_denied", `${url} is a restricted page`, {
    ...(rule && { hint: rule.hint }),
    data: { reason: "restricted_url", url, ...(tabId === undefined ? {} : { tab_id: tabId }), ...(rule && { rule: rule.rule }) },
  });
}

/** Throws `permission_denied` (restricted_url) for a URL no session may open or touch (file: URLs included). */
export function assertNotRestricted(url: string, tabId?: number): void {
  if (isRestrictedUrl(url)) throw restrictedUrlError(url, tabId);
}
