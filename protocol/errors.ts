/**
 * The error table. Frozen: adding a code is a protocol change (bump the minor).
 * Each code has its process exit code and a default one-line hint telling the agent what to do next.
 * `REASON_HINTS` refine the hint for a finer cause carried in `data.reason`.
 */
export const ERRORS = {
  invalid_params: { exit: 1, hint: "Check the command's arguments with --help." },
  not_found: { exit: 1, hint: "List what exists (bsk session list, bsk tab list) and use one of those ids." },
  permission_denied: { exit: 1, hint: "Act only on tabs this session created or borrowed (bsk tab list)." },
  unsupported: { exit: 1, hint: "This is not possible here; use another command or ask the person (bsk request-help)." },
  no_browser_connected: {
    exit: 1,
    hint: "Open the browser with the bsk extension (or retry with --launch: bsk starts it); check its popup shows Connected.",
  },
  multiple_browsers_online: { exit: 1, hint: "Choose one with --browser <id|label> (bsk browsers lists them)." },
  stale_ref: { exit: 1, hint: "Take a fresh snapshot and use the new refs; never guess a similar element." },
  element_obscured: { exit: 1, hint: "Close or dismiss what covers the element, then retry." },
  evaluation_failed: { exit: 1, hint: "The page script threw; fix the expression (the JS error is in data)." },
  protocol_error: { exit: 2, hint: "A frame was malformed or a connection broke; retry, and report it if it repeats." },
  cancelled: { exit: 2, hint: "The call was cancelled before it finished; check the page state before retrying." },
  user_aborted: { exit: 2, hint: "The person stopped or took over; ask them before continuing." },
  cdp_failed: { exit: 3, hint: "The browser refused the operation; re-observe the page and try another way." },
  timeout: { exit: 4, hint: "It did not finish in time; check the page state, then retry with a longer --timeout." },
  session_busy: { exit: 4, hint: "The session is running another call; wait for it, or use another session." },
  unknown_method: { exit: 5, hint: "This daemon or extension does not know the method; update bsk and the extension." },
  version_too_old: { exit: 5, hint: "Update the older side: bsk update, and reload the extension from the same release." },
  dialog_pending: { exit: 6, hint: "Answer the page's dialog first: bsk dialog accept|dismiss." },
  prompt_pending: {
    exit: 10,
    hint: "The browser is asking the person something in this tab (bsk dialog status shows it); the tab takes no input until it is answered: ask them with bsk request-help --prompt '…', or bsk dialog dismiss (reloads the page without it).",
  },
  incognito_not_allowed: {
    exit: 1,
    hint: 'An isolated session runs in an incognito window: ask the person to allow bsk there (chrome://extensions → bsk → Details → "Allow in Incognito"), then start it again.',
  },
  input_not_delivered: {
    exit: 11,
    hint: "The page received none of the input, so nothing happened; check bsk dialog status (a browser prompt) and re-observe before retrying.",
  },
  approval_denied: {
    exit: 12,
    hint: "The person did not allow this action here (Deny, no answer in time, or the page changed meanwhile); nothing was sent to the page. Do not retry it on your own: ask the person (bsk request-help --prompt '…') or report what you needed.",
  },
  input_diverted: {
    exit: 14,
    hint: "The page moved the focus while your keys went in, so bsk stopped: data says how many went to the target (delivered) and that the one sent as it moved may have gone elsewhere (data.focus). Re-observe; check both fields before typing the rest (into the field it moved to, by its own ref, only if that is what you meant).",
  },
  navigated_during_input: {
    exit: 15,
    hint: "The page navigated while your keys went in, so bsk stopped: data says how many went in before it. Re-observe the new page before typing anything more; do not retype on it blindly.",
  },
  approval_required: {
    exit: 13,
    hint: "This action needs the person's Allow and could not be asked for here; nothing was sent to the page. See data.reason: re-observe, then act where the person can be asked.",
  },
} as const satisfies Record<string, { exit: number; hint: string }>;

/**
 * Results that are not what the agent asked for: the call worked, yet the command exits non-zero (one code per
 * outcome, after the error codes) so a script cannot take them for success. The result is printed as usual.
 */
export const OUTCOME_EXITS: Record<string, Record<string, { exit: number; meaning: string }>> = {
  request_help: {
    cancelled: { exit: 7, meaning: "The person cancelled the help request; ask them what they want before going on." },
    timed_out: { exit: 8, meaning: "The person did not finish in time; do not retry on your own, report what you needed." },
    disabled: { exit: 9, meaning: "The person turned help requests off; stop and report what you needed." },
  },
};

/** The exit code for a successful call's result (0 unless its outcome is in OUTCOME_EXITS). */
export function outcomeExitCode(method: string | undefined, result: unknown): number {
  const outcome = (result as { outcome?: unknown } | null)?.outcome;
  return (method && typeof outcome === "string" && OUTCOME_EXITS[method]?.[outcome]?.exit) || 0;
}

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

/**
 * A call that ran out of time in the browser, and the browser did not say in time what became of the page: bsk stops a
 * page script still running then (extension/src/cdp/runaway.ts), and the browser's own answer names what it found
 * (data.reason page_script_stopped, hung_page_discarded, page_hung, borrowed_page_hung).
 */
export const BROWSER_TIMEOUT_HINT =
  "It did not finish in time. A page script still running then (a busy loop, a handler that never returns) is stopped, " +
  "so the tab answers the next call; check the page state, then retry (with a longer --timeout if the page is only slow).";

/**
 * The browser answers a call that reached its deadline within this long after it, with what its check of the page
 * found when the check ended by then (a script that kept the page busy was stopped): the page was asked ahead of the
 * deadline, so only the pause or the discard is left. A check still running is told by BROWSER_TIMEOUT_HINT.
 */
export const BROWSER_TIMEOUT_REPORT_MS = 600;

/** The daemon waits this long past a call's deadline for the browser's answer, then gives its own (issue #40: < 1 s). */
export const BROWSER_TIMEOUT_FALLBACK_MS = BROWSER_TIMEOUT_REPORT_MS + 200;

/** Finer causes in `data.reason`, with a hint that beats the code's default. */
export const REASON_HINTS: Record<string, string> = {
  no_panel_here:
    "The person is asked in the page itself, and this one (about:blank, data:) cannot show it: navigate to the site first (a navigation is not asked there), then act; the person is asked on that page.",
  request_to_ask_first_site:
    "A page of another site sent a request that could change something on a site the person asked to approve; the browser blocked it, so nothing reached that site. Act on that site's own page (navigate there: the person is asked), or ask the person.",
  asks_now:
    "The tab came to hold a site that asks first (the page navigated, or framed it) after the call was checked: re-observe, then run the call again; the person will be asked.",
  page_hidden:
    "The browser paints nothing in a hidden window: ask the person to show the session's window (bsk request-help --prompt '…'); snapshot, evaluate, click, fill, type and press work meanwhile.",
  agent_window_scope: "This tab is not the session's: use a tab it created (bsk tab create) or borrow one (bsk tab borrow).",
  borrow_conflict: "Another session holds this tab; pick another tab or wait until it is returned.",
  borrow_denied: "The person said no; do not ask again for this tab.",
  linked_tabs:
    "This tab and another of the person's opened one another, so a script in one can reach the other; such tabs are never lent. Ask the person to open the page in a new tab of its own (paste its address) or to close the tab(s) it is linked to, then borrow again.",
  borrow_timed_out: "The person did not answer; do not ask again, carry on without that tab.",
  origin_not_allowed:
    "This session may load only the origins given with session start --allow-origin; stay on them, or ask the person to start a session that allows this origin.",
  extension_not_allowed: "Add the extension id with: bsk daemon allow-extension <id>.",
  browser_prompt:
    "The browser is asking the person something bsk cannot see or answer (HTTP sign-in, a permission, opening another app): ask them with bsk request-help --prompt '…', then re-observe.",
  untrusted_extension:
    "The extension is paired with another bsk install: run bsk daemon pair and type the code into the extension popup's Pairing field.",
  no_pairing_code: "Run bsk daemon pair for a fresh code and type it into the popup within its time; each code pairs once.",
  pairing_failed:
    "The code did not match: type it again exactly after retry_after_ms (in data; a wrong try does not use the code up), or run bsk daemon pair for a new one.",
  pairing_rate_limited:
    "Wait retry_after_ms (in data), then try the code again: wrong tries do not use it up, but each doubles its address's wait. If nobody here made those tries, someone else is guessing: run bsk daemon pair for a new code, which starts afresh.",
  rate_limited: "Too many requests from this address: wait the Retry-After (retry_after_ms in data), then try again.",
  borrowed_tab: "The tab is the person's, only borrowed; give it back with bsk tab return instead of closing it.",
  incognito: "Incognito tabs cannot be borrowed; ask the person to open the page in a normal window.",
  isolated_session:
    "An isolated session never holds the person's tabs (they carry their logins); open the page in the session's own tab (bsk tab create), or start a normal session to borrow.",
  incognito_in_use:
    "The person has an incognito window open, and every incognito window shares one set of cookies: ask them to close theirs, then start the isolated session again.",
  already_owned: "The session already owns this tab; use it directly with --tab.",
  not_borrowed: "Only borrowed tabs are returned; close the session's own tabs with bsk tab close.",
  not_a_normal_window: "Only tabs of the person's normal windows can be borrowed; ask them to open the page in a tab.",
  restricted_url: "Browser-internal, extension and store pages cannot be automated; use a web page.",
  ambiguous_selector: "The selector matched several elements; use a ref from bsk snapshot or a more specific selector.",
  taken_over: "The person took over this session; wait until they click Resume, then re-observe.",
  daemon_not_running: "Start it with: bsk daemon start (automatic start is off because BSK_AUTO_START=0).",
  session_ended: "The session has ended; start a new one with: bsk session start.",
  queue_full: "Too many calls are waiting on this session; wait for them to finish.",
  frame_too_large: "Frames are capped at 16 MiB; ask for less (smaller --max-tokens, a file output).",
  browser_gone: "The browser disconnected; reopen it and start a new session.",
  op_id_reused: "This --op-id was used for a different call; use a fresh op id.",
  daemon_restarted:
    "The daemon stopped while this op was in flight, so it may or may not have run; check the page before acting again (this op id never runs again).",
  ledger_unavailable: "The operation ledger cannot be written, so no mutation runs; check the disk under $BSK_HOME/ledger.",
  renderer_crashed: "The tab's page crashed; reload it (bsk reload) or open it again, then re-observe.",
  page_script_stopped:
    "A script kept the page busy (a loop in the page's own code, or in yours) and was stopped by bsk, so the tab answers again; the page may be half-updated: re-observe, then navigate or retry (with a longer --timeout if your script only needed more time).",
  hung_page_discarded:
    "The page hung in its own script and could not be stopped (a navigation already waited on it), so bsk discarded it to free the tab, which now shows about:blank; if data.new_tab_id is set, the tab has that id now (a tab.replaced event says so too): use it. Navigate again to go on (a reload would load nothing useful; loading the hung page again may hang it again).",
  borrowed_page_hung:
    "The person's own page (a borrowed tab) hung in its own script; bsk does not discard what is theirs. Give the tab back (bsk tab return) and tell the person; do not close it.",
  page_hung:
    "The page hung in a script bsk could not stop, and the tab may answer nothing more: close it (bsk tab close) and open the page in a new tab (bsk tab create).",
  file_input_not_activated: "The click did not open a file chooser; target the file input or its button.",
  out_exists: "Pass --overwrite to replace the file, or choose another --out.",
  no_download: "The click started no download; target the link or button that downloads.",
  download_prompted: "Chrome asks where to save each file; ask the person to turn that off (Settings > Downloads).",
  file_too_large: "Staged files are capped (BSK_TRANSFER_MAX_FILE_BYTES); send a smaller file.",
  session_quota: "The session's staged files are capped (BSK_TRANSFER_MAX_SESSION_BYTES); start a new session.",
  capture_navigated: "The page navigated during the capture; wait for it to settle, then capture again.",
  capture_deactivated: "Keep the tab in front while it is captured, then capture again.",
  label_ambiguous: "Several browsers share that label; use the instance id from bsk browsers.",
  no_current_tab: "The session has no current tab; create one with bsk tab create.",
  invalid_criteria:
    "Fix --until: a JSON object with url_contains, url_matches, element_exists, element_missing, text_present or text_absent (and stable_ms); selectors must be valid CSS.",
  help_pending: "This tab already shows a help request; wait for its outcome before asking again.",
  tab_closed: "The tab was closed; list the session's tabs (bsk tab list) and continue in one of them.",
  extension_too_old:
    "Update the extension to this bsk's release: unzip its bsk-extension-<version>.zip over the unpacked extension's folder, then click reload on chrome://extensions.",
  daemon_too_old: "The extension is newer than bsk: run bsk update (the daemon restarts by itself).",
  bad_signature:
    "Nothing was installed: the manifest is not signed by the bsk release key. Check BSK_UPDATE_MANIFEST_URL; never work around this.",
  missing_checksum: "Nothing was installed: the release names no SHA-256 for this platform; wait for a fixed release.",
  checksum_mismatch: "Nothing was installed: the download differs from what the release signed; retry later and report it if it repeats.",
  manifest_expired:
    "Nothing was installed: the release host serves a signed manifest past its expiry (a stale mirror or cache, or someone holding bsk on an old release), or this computer's clock is wrong. Check the clock, then BSK_UPDATE_MANIFEST_URL; retry later and report it if the official host does this.",
  manifest_rollback:
    "Nothing was installed: the release host serves an older signed manifest than one this bsk has already seen (a stale mirror, or someone rolling bsk back to an old release). Check BSK_UPDATE_MANIFEST_URL; never work around this.",
  bad_manifest: "The release manifest is malformed; check BSK_UPDATE_MANIFEST_URL or retry later.",
  manifest_unreachable: "Nothing changed; check the network and BSK_UPDATE_MANIFEST_URL, then retry.",
  download_failed: "Nothing changed; check the network and retry bsk update.",
  response_too_large:
    "Nothing changed: the release host sent more than such a file can be, so bsk stopped reading; check BSK_UPDATE_MANIFEST_URL and report it if it is the official host.",
  bad_archive: "Nothing was installed: the release archive holds no usable bsk binary.",
  new_binary_broken: "Nothing was installed: the new binary does not run here; report it with your OS and CPU.",
  no_asset_for_platform: "This release has no build for this OS and CPU; build from source (npm run build).",
  no_release_host: "Set BSK_UPDATE_MANIFEST_URL to a release's version.json, or install a released bsk with install.sh.",
  not_installed_binary: "Run the installed bsk's update instead; a source checkout updates with git pull && npm run build.",
  npm_install: "npm installed this bsk, so npm updates it: npm i -g @bsk-dev/bsk@latest.",
  sessions_live: "Sessions must end first (bsk session list, bsk session stop <id>), then run bsk update again; --yes does not skip this.",
  confirmation_required: "Run bsk update --yes to install without a prompt, or bsk update --check to only look.",
  update_in_progress: "Another update is running; wait for it, then check bsk version.",
  install_dir_not_writable:
    "bsk cannot write where it is installed; run the update as that directory's owner, or reinstall with install.sh into a BSK_INSTALL_DIR you own.",
  unproven_client:
    "Only a bsk CLI that reads this home's $BSK_HOME/link.key may use the daemon, and only after proving it: use the bsk binary of the daemon's release (after an update, bsk daemon stop, then any command starts the new daemon).",
  unproven_daemon:
    "Whatever answered there is not this home's bsk daemon (or is an older one that proves nothing); only a random nonce was sent to it. If it is an older bsk daemon, end it (its pid is in $BSK_HOME/daemon.json) and retry; otherwise something else is listening in bsk's place: tell the person, and do not work around it.",
  no_link_key:
    "The CLI must read $BSK_HOME/link.key to reach the daemon: in a sandbox, allow reading $BSK_HOME (docs/install.md, agents in sandboxes); otherwise bsk daemon start makes it.",
  update_rolled_back: "The new daemon did not serve, so the previous bsk was put back; see bsk logs and report it.",
};

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  hint?: string;
  data?: { reason?: string; [key: string]: unknown };
}

/** An error as a value: always a code, a message and a hint. Throwable where convenient. */
export class BskError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly data?: ErrorBody["data"];

  constructor(code: ErrorCode, message: string, opts: { hint?: string; data?: ErrorBody["data"] } = {}) {
    super(message);
    this.name = "BskError";
    this.code = code;
    this.data = opts.data;
    this.hint = opts.hint ?? hintFor(code, opts.data?.reason);
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message, hint: this.hint };
    if (this.data !== undefined) body.data = this.data;
    return body;
  }

  static from(body: ErrorBody): BskError {
    const code = isErrorCode(body.code) ? body.code : "protocol_error";
    return new BskError(code, body.message, { hint: body.hint, data: body.data });
  }
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(ERRORS, code);
}

export function hintFor(code: ErrorCode, reason?: string): string {
  return (reason && REASON_HINTS[reason]) || ERRORS[code].hint;
}

export function exitCodeFor(code: string): number {
  return isErrorCode(code) ? ERRORS[code].exit : 2;
}

/** Normalise anything thrown into an error body; unknown failures become protocol_error. */
export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof BskError) return err.toBody();
  if (err && typeof err === "object" && "code" in err && "message" in err && isErrorCode((err as ErrorBody).code)) {
    const e = err as ErrorBody;
    return { code: e.code, message: e.message, hint: e.hint ?? hintFor(e.code, e.data?.reason), data: e.data };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: "protocol_error", message, hint: ERRORS.protocol_error.hint };
}
