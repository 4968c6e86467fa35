/**
 * The declarativeNetRequest session rules that enforce every session's --allow-origin (pure, so bun test can check
 * them): per session, one block rule over its tab ids (top-level and frame requests, or every type with
 * --block-requests) and a higher-priority allow rule per allowed origin (and its ws twin). A session without tabs
 * or without a list has none.
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

/** The rules that enforce every session's list now: one block rule and one allow rule per origin (and its ws twin). */
export function rulesFor(sessions: readonly SessionState[]): Rule[] {
  const rules: Rule[] = [];
  let id = 1;
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
