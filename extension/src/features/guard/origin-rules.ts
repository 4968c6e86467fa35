/**
 * The declarativeNetRequest session rules that enforce every session's --allow-origin (pure, so bun test can check
 * them): per session, one block rule over its tab ids (top-level and frame requests, or every type with
 * --block-requests) and a higher-priority allow rule per allowed origin (and its ws twin). A session without tabs
 * or without a list has none.
 *
 * And the person's ask-first sites: a request that may change something there (any method but GET and HEAD, a form's
 * POST included) from a session's tab is blocked unless a page of that site itself sends it, at a priority above
 * every allow rule. Its pages were asked for (features/approval/); a page of another site was not, and would send the
 * person's cookies along. Sites are matched by host (and its subdomains), whatever the scheme or port: stricter than
 * the list's origins, never looser.
 */
import type { Browser } from "wxt/browser";
import type { SessionState } from "../../session/settings.ts";

type Rule = Browser.declarativeNetRequest.Rule;
type ResourceType = `${Browser.declarativeNetRequest.ResourceType}`;

const FRAMES: ResourceType[] = ["main_frame", "sub_frame"];
const EVERYTHING: ResourceType[] = [
  "main_frame",
  "sub_frame",
  "stylesheet",
  "script",
  "image",
  "font",
  "object",
  "xmlhttprequest",
  "ping",
  "csp_report",
  "media",
  "websocket",
  "webtransport",
  "webbundle",
  "other",
];

/** The methods a request that may change something is sent with: all but GET and HEAD. */
const WRITES = ["connect", "delete", "options", "patch", "post", "put", "other"] as `${Browser.declarativeNetRequest.RequestMethod}`[];

/** The host of an ask-first origin, as declarativeNetRequest's domains want it; null for what has none. */
export function askFirstHost(origin: string): string | null {
  try {
    const host = new URL(origin).hostname;
    return host.startsWith("[") ? host.slice(1, -1) : host || null;
  } catch {
    return null;
  }
}

/**
 * The rules that enforce every session's list now: one block rule and one allow rule per origin (and its ws twin);
 * and per ask-first site, one block rule over all sessions' tabs for what may change something there.
 */
export function rulesFor(sessions: readonly SessionState[], askFirst: readonly string[] = []): Rule[] {
  const rules: Rule[] = [];
  let id = 1;
  const allTabs = sessions.flatMap((s) => Object.keys(s.tabs).map(Number));
  const hosts = [...new Set(askFirst.map(askFirstHost).filter((h): h is string => h !== null))];
  if (allTabs.length) {
    for (const host of hosts) {
      rules.push({
        id: id++,
        priority: 3,
        action: { type: "block" as Browser.declarativeNetRequest.RuleActionType },
        condition: {
          tabIds: allTabs,
          requestDomains: [host],
          excludedInitiatorDomains: [host],
          requestMethods: WRITES as Browser.declarativeNetRequest.RequestMethod[],
          resourceTypes: EVERYTHING as Browser.declarativeNetRequest.ResourceType[],
        },
      });
    }
  }
  for (const s of sessions) {
    const tabIds = Object.keys(s.tabs).map(Number);
    if (!s.allow_origins?.length || tabIds.length === 0) continue;
    const resourceTypes = (s.block_requests ? EVERYTHING : FRAMES) as Browser.declarativeNetRequest.ResourceType[];
    rules.push({
      id: id++,
      priority: 1,
      action: { type: "block" as Browser.declarativeNetRequest.RuleActionType },
      condition: { tabIds, resourceTypes },
    });
    for (const origin of s.allow_origins) {
      const socket = origin.replace(/^http/, "ws");
      for (const prefix of s.block_requests ? [origin, socket] : [origin]) {
        rules.push({
          id: id++,
          priority: 2,
          action: { type: "allow" as Browser.declarativeNetRequest.RuleActionType },
          condition: { tabIds, resourceTypes, urlFilter: `|${prefix}/` },
        });
      }
    }
  }
  return rules;
}
