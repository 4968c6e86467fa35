/**
 * file:// URLs and sessions. Off by default: a session's tabs neither open nor stay on a file: page (restricted_url).
 * The person may allow them with the popup switch "Let sessions open local files"; even then never for a remote
 * agent's session (the switch is for agents on this computer), never for a session with an origin allow-list
 * (--allow-origin names web origins; a file is none of them), and never below $BSK_HOME (its trust.key is the
 * install's secret). The URL's text is checked against $BSK_HOME as the handshake named it, then the local daemon
 * judges the path the OS would open (system.file_url, daemon/local-files.ts: links, /proc, /sys, /dev, $BSK_HOME
 * by inode); without its answer the URL is refused. A page's own navigation of a session tab (or of a frame in it)
 * to a refused file: URL sends the tab back to about:blank (features/guard/file-url-guard.ts).
 */
import type { FileUrlRule } from "../../../protocol/methods/system.ts";
import { call } from "../ports/to-daemon.ts";
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

const RULES: Record<"file_urls_off" | "remote_session" | "allow_origins" | FileUrlRule, string> = {
  file_urls_off: "Local files are off for sessions; only the person can allow them (bsk popup: Let sessions open local files).",
  remote_session: "A session of an agent on another computer never opens this computer's local files, whatever the popup says.",
  allow_origins: "A session started with --allow-origin never opens local files; stay on its origins.",
  bsk_home: "Files below bsk's own folder ($BSK_HOME) are never opened by a session, under any name.",
  system_files: "Files below /proc, /sys and /dev are never opened by a session.",
  linked_path: "The path goes through a symbolic link that is not root's; open the file by its real path.",
  unresolved:
    "bsk could not resolve this path on this computer (no such file, no permission, or bsk's daemon did not answer); nothing was opened. Check the path.",
};
/** How long the daemon's judgement of a path may take before the URL counts as refused. */
const JUDGE_MS = 5000;
type Rule = keyof typeof RULES;

/** Why the session may not open this file: URL, or null when it may. */
export async function fileRefusal(session: SessionState, url: string): Promise<Rule | null> {
  if (session.remote_host !== undefined) return "remote_session";
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
  if (bskHome.some((home) => path === home || path.startsWith(`${home}/`))) return "bsk_home";
  try {
    return (await call("system.file_url", { url }, JUDGE_MS)).rule;
  } catch {
    return "unresolved";
  }
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
