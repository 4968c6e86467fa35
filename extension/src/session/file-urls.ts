/**
 * file:// URLs and sessions. Off by default: a session's tabs neither open nor stay on a file: page (restricted_url).
 * The person may allow them with the popup switch "Let sessions open local files"; even then never for a session with
 * an origin allow-list (--allow-origin names web origins; a file is none of them), and never below $BSK_HOME (its
 * trust.key is the install's secret), which the daemon names in the handshake (as configured and with symlinks
 * resolved). Until a daemon has named it, no file: URL is allowed. A page's own navigation of a session tab to a
 * refused file: URL is sent back to about:blank before it loads (features/guard/file-url-guard.ts).
 */
import { isRestrictedUrl, restrictedUrlError } from "./scope.ts";
import { readSwitches, type SessionState } from "./settings.ts";

let bskHome: string[] | null = null;

/** From the handshake: $BSK_HOME's paths (connection.ts). */
export function setBskHome(paths: readonly string[] | undefined): void {
  bskHome = paths?.length ? paths.map(normalPath) : null;
}

function normalPath(path: string): string {
  return path.replace(/\/+/g, "/").replace(/\/$/, "").toLowerCase();
}

const RULES = {
  file_urls_off: "Local files are off for sessions; only the person can allow them (bsk popup: Let sessions open local files).",
  allow_origins: "A session started with --allow-origin never opens local files; stay on its origins.",
  bsk_home: "Files below bsk's own folder ($BSK_HOME) are never opened by a session.",
} as const;
type Rule = keyof typeof RULES;

/** Why the session may not open this file: URL, or null when it may. */
export async function fileRefusal(session: SessionState, url: string): Promise<Rule | null> {
  if (!(await readSwitches()).allow_file_urls) return "file_urls_off";
  if (session.allow_origins?.length) return "allow_origins";
  const u = URL.parse(url);
  if (!u || !bskHome) return "bsk_home";
  let path: string;
  try {
    path = normalPath(decodeURIComponent(u.pathname));
  } catch {
    return "bsk_home";
  }
  return bskHome.some((home) => path === home || path.startsWith(`${home}/`)) ? "bsk_home" : null;
}

export const isFileUrl = (url: string) => /^file:/i.test(url.trim());

/** Throws permission_denied (restricted_url) unless the session may open or act on `url`. */
export async function assertSessionMayOpen(session: SessionState, url: string, tabId?: number): Promise<void> {
  if (!isFileUrl(url)) {
    if (isRestrictedUrl(url)) throw restrictedUrlError(url, tabId);
    return;
  }
  const rule = await fileRefusal(session, url);
  if (rule) throw restrictedUrlError(url, tabId, { rule, hint: RULES[rule] });
}
