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
import { rulesFor } from "./origin-rules.ts";

const BLOCKED = "net::ERR_BLOCKED_BY_CLIENT";

/** Throws permission_denied (origin_not_allowed) when the session may not load `url`. */
export function assertOriginAllowed(s: SessionState, url: string, tabId?: number): void {
  assertAllowedIn(s.allow_origins, url, tabId === undefined ? {} : { tab_id: tabId });
}

/** The session rules last applied and the update in progress (updates run one after another). */
interface OriginsState {
  applied: string;
  chain: Promise<void>;
}
const originsState: OriginsState = {
  applied: "",
  chain: Promise.resolve(),
};

/** Replaces our session rules with what the sessions need now (we are the only user of session rules). */
function sync(): Promise<void> {
  originsState.chain = originsState.chain
    .then(async () => {
      const rules = rulesFor(allSessions());
      const wanted = JSON.stringify(rules);
      if (wanted === originsState.applied) return;
      const existing = await browser.declarativeNetRequest.getSessionRules();
      await browser.declarativeNetRequest.updateSessionRules({ removeRuleIds: existing.map((r) => r.id), addRules: rules });
      originsState.applied = wanted;
    })
    .catch((err: unknown) => console.error("bsk: could not update the origin rules", err));
  return originsState.chain;
}

/** Resolves once the rules match the sessions as they are now. */
export function rulesInStep(): Promise<void> {
  return sync();
}

function blocked(s: SessionState, tabId: number, url: string, kind: "navigation" | "frame" | "request"): void {
  emit("origin.blocked", { session_id: s.session_id, tab_id: tabId, url, kind });
  if (kind === "navigation") reportIncident(s.session_id, { kind: "origin_blocked", tab_id: tabId, url });
}

/** The session with an allow-list that owns the tab, if `url` is outside it. */
function limitedOwner(tabId: number, url: string): { session: SessionState; ownership: string } | undefined {
  const owner = ownerOfTab(tabId);
  if (!owner?.session.allow_origins?.length || originAllowed(owner.session.allow_origins, url)) return undefined;
  return owner;
}

export function installOriginGuard(): void {
  onSessionsChanged(() => void sync());
  void sessionsReady().then(() => sync());

  browser.webNavigation.onErrorOccurred.addListener((d) => {
    if (d.error !== BLOCKED) return;
    void sessionsReady().then(() => {
      const owner = limitedOwner(d.tabId, d.url);
      if (owner) blocked(owner.session, d.tabId, d.url, d.frameId === 0 ? "navigation" : "frame");
    });
  });

  browser.webRequest.onErrorOccurred.addListener(
    (d) => {
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
