/**
 * A session's origin allow-list (session start --allow-origin), enforced by the browser itself: declarativeNetRequest
 * session rules keyed by the session's tab ids block top-level and frame requests to other origins (every request
 * type with --block-requests), and higher-priority allow rules let the listed origins through. The rules follow the
 * session's tabs as they come and go (created, opened by its pages, borrowed) and go with the session; the person's
 * own tabs are never in them. Blocks are reported as origin.blocked events, and a blocked top-level navigation fails
 * the call that caused it (incidents.ts). `navigate` and `tab create` are refused before they start.
 */
import { browser } from "wxt/browser";
import { assertOriginAllowed as assertAllowedIn, originAllowed, requestOrigin } from "../../../../protocol/origins.ts";
import { emit } from "../../ports/outbox.ts";
import { allSessions, onSessionsChanged, ownerOfTab, sessionsReady } from "../../session/sessions.ts";
import type { SessionState } from "../../session/settings.ts";
import { reportIncident } from "./incidents.ts";
import { askFirstHost, rulesFor } from "./origin-rules.ts";
import { readAskFirst } from "../approval/sites.ts";
import { LOCAL } from "../../session/settings.ts";

const BLOCKED = "net::ERR_BLOCKED_BY_CLIENT";

/** Throws permission_denied (origin_not_allowed) when the session may not load `url`. */
export function assertOriginAllowed(s: SessionState, url: string, tabId?: number): void {
  assertAllowedIn(s.allow_origins, url, tabId === undefined ? {} : { tab_id: tabId });
}

/** The session rules last applied and the update in progress (updates run one after another). */
interface OriginsState {
  applied: string;
  chain: Promise<void>;
  /** The ask-first sites' hosts the rules block for, as last applied. */
  askHosts: string[];
}
const originsState: OriginsState = {
  applied: "",
  chain: Promise.resolve(),
  askHosts: [],
};

/** Replaces our session rules with what the sessions need now (we are the only user of session rules). */
function sync(): Promise<void> {
  originsState.chain = originsState.chain
    .then(async () => {
      // An unreadable list blocks nothing here; the calls themselves fail closed (approval/sites.ts).
      const askFirst = (await readAskFirst()) ?? [];
      const rules = rulesFor(allSessions(), askFirst);
      const wanted = JSON.stringify(rules);
      if (wanted === originsState.applied) return;
      const existing = await browser.declarativeNetRequest.getSessionRules();
      await browser.declarativeNetRequest.updateSessionRules({ removeRuleIds: existing.map((r) => r.id), addRules: rules });
      originsState.applied = wanted;
      originsState.askHosts = askFirst.map(askFirstHost).filter((h): h is string => h !== null);
    })
    .catch((err: unknown) => console.error("bsk: could not update the origin rules", err));
  return originsState.chain;
}

/** Resolves once the rules match the sessions as they are now. */
export function rulesInStep(): Promise<void> {
  return sync();
}

function blocked(s: SessionState, tabId: number, url: string, kind: "navigation" | "frame" | "request"): void {
  emit("origin.blocked", { session_id: s.session_id, tab_id: tabId, url, kind, cause: "allow_origin" });
  if (kind === "navigation") reportIncident(s.session_id, { kind: "origin_blocked", tab_id: tabId, url });
}

/** The session with an allow-list that owns the tab, if `url` is outside it. */
function limitedOwner(tabId: number, url: string): { session: SessionState; ownership: string } | undefined {
  const owner = ownerOfTab(tabId);
  if (!owner?.session.allow_origins?.length || originAllowed(owner.session.allow_origins, url)) return undefined;
  return owner;
}

/**
 * A request the ask-first rule blocked (origin-rules.ts): one that may change something on a listed site, from a
 * session's tab, sent by a page that is not that site. It fails the call that caused it (approval_required).
 */
function askFirstBlock(d: { tabId: number; url: string; method: string; type: string; frameId: number }): void {
  if (d.tabId < 0 || d.method === "GET" || d.method === "HEAD") return;
  // Told at once (no await): the call whose page sent it is still running and fails with it.
  const owner = ownerOfTab(d.tabId);
  const host = askFirstHost(d.url);
  if (!owner || !host || !originsState.askHosts.some((h) => host === h || host.endsWith(`.${h}`))) return;
  const kind = d.type === "main_frame" ? "navigation" : d.type === "sub_frame" ? "frame" : "request";
  emit("origin.blocked", { session_id: owner.session.session_id, tab_id: d.tabId, url: d.url, kind, cause: "ask_first", method: d.method });
  reportIncident(owner.session.session_id, { kind: "ask_first_request", tab_id: d.tabId, url: d.url, method: d.method });
}

export function installOriginGuard(): void {
  onSessionsChanged(() => void sync());
  void sessionsReady().then(() => sync());
  // The person's ask-first list changes the rules at once (only the popup writes it).
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && LOCAL.askFirst in changes) void sync();
  });

  browser.webNavigation.onErrorOccurred.addListener((d) => {
    if (d.error !== BLOCKED) return;
    void sessionsReady().then(() => {
      const owner = limitedOwner(d.tabId, d.url);
      if (owner) blocked(owner.session, d.tabId, d.url, d.frameId === 0 ? "navigation" : "frame");
    });
  });

  browser.webRequest.onErrorOccurred.addListener(
    (d) => {
      if (d.error === BLOCKED) askFirstBlock(d);
      if (d.error !== BLOCKED || d.tabId < 0 || d.type === "main_frame" || d.type === "sub_frame") return;
      void sessionsReady().then(() => {
        const owner = limitedOwner(d.tabId, d.url);
        if (owner?.session.block_requests) blocked(owner.session, d.tabId, d.url, "request");
      });
    },
    { urls: ["<all_urls>"] },
  );

  // A tab a page opened starts loading before its rules land. If it got somewhere it may not be, it goes back to
  // about:blank (a borrowed tab is the person's page and is left alone).
  browser.webNavigation.onCommitted.addListener((d) => {
    if (d.frameId !== 0 || requestOrigin(d.url) === null) return;
    void sessionsReady().then(async () => {
      const owner = limitedOwner(d.tabId, d.url);
      if (!owner || owner.ownership === "borrowed") return;
      await sync();
      await browser.tabs.update(d.tabId, { url: "about:blank" }).catch(() => undefined);
      blocked(owner.session, d.tabId, d.url, "navigation");
    });
  });
}
