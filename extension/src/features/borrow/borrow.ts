/**
 * tab.borrow and tab.return. A borrow checks the tab, asks the person (unless they turned confirmation off in the
 * popup), checks again, then moves the tab intact (chrome.tabs.move keeps its DOM, script state and connections)
 * to the end of the Agent Window, where it becomes the session's current tab.
 *
 * One borrow per tab at a time, across sessions: the tab is reserved synchronously before anything is awaited,
 * so of two sessions racing for it exactly one asks the person; the other gets borrow_conflict at once.
 */
import { browser, type Browser } from "wxt/browser";
import type { ParsedParams, Result } from "../../../../protocol/catalog.ts";
import { BskError } from "../../../../protocol/errors.ts";
import { abortError, errorMessage } from "../../shared/abort.ts";
import { emit } from "../../ports/outbox.ts";
import { assertOwned } from "../../session/scope.ts";
import {
  adoptTab,
  allSessions,
  giveBack,
  ownerOfTab,
  requireSession,
  sessionByWindow,
  setCurrent,
  setGroupWindow,
} from "../../session/sessions.ts";
import { readSwitches, type SessionState } from "../../session/settings.ts";
import { askConsent } from "./consent.ts";
import { linkedTabs } from "./links.ts";
import { originOf, putBack } from "../../session/place.ts";
import { borrowRefusal } from "./rules.ts";
import { sending } from "../../session/input-mark.ts";
import { assertMayBorrowInto } from "../../session/isolated.ts";
import { groupWindow, joinGroup, ourMove } from "../../session/groups.ts";

/** Tab id → the session whose borrow of it is under way. */
const underway = new Map<number, string>();

export async function borrowTab(p: ParsedParams<"tab.borrow">, signal: AbortSignal): Promise<Result<"tab.borrow">> {
  const session = requireSession(p.session_id);
  const tabId = p.tab_id;
  assertMayBorrowInto(session, tabId);
  if (session.no_borrow) throw noBorrow(session.session_id, tabId);
  const other = underway.get(tabId);
  if (other !== undefined) {
    throw borrowRefusal(session.session_id, { tab_id: tabId, url: "", incognito: false, window_type: "normal", pending_for: other })!;
  }
  underway.set(tabId, session.session_id);
  try {
    const tab = await eligibleTab(session, tabId);
    // A remote agent always asks: the switch is about the person's own machine's agents only.
    const asked = mustAsk(session, (await readSwitches()).confirm_borrow);
    if (asked) await askConsent({ session, tab, timeoutMs: p.timeout_ms, signal });
    if (signal.aborted) throw abortError(signal);
    // The session may have ended and the tab may have changed while the person was deciding.
    const s = requireSession(p.session_id);
    const now = await eligibleTab(s, tabId);
    if (asked && siteOf(now) !== siteOf(tab)) {
      // The person said yes to the page they were shown, not to whatever the tab shows now.
      throw new BskError("permission_denied", `tab ${tabId} went to another site while the person was asked`, {
        data: { reason: "borrow_denied", tab_id: tabId, detail: "tab_changed" },
      });
    }
    const from = originOf(now);
    if (s.group_id !== undefined) setGroupWindow(s, (await groupWindow(s.group_id)) ?? s.window_id);
    const move = async () =>
      now.windowId === s.window_id ? now : only(await browser.tabs.move(tabId, { windowId: s.window_id, index: -1 }));
    // A group session's tab joins its group: bsk's own move, not the person's drag (groups.ts).
    const moved = await ourMove(tabId, async () => {
      const m = await sending({ sessionId: s.session_id }, move);
      if (signal.aborted) {
        await putBack(tabId, from, isAgentWindow).catch(() => undefined);
        throw abortError(signal);
      }
      adoptTab(s, tabId, "borrowed", from);
      if (s.group_id !== undefined) await joinGroup(s.group_id, tabId);
      return m;
    });
    setCurrent(s, tabId);
    const active = await browser.tabs.update(tabId, { active: true }).catch(() => undefined);
    emit("tab.borrowed", { session_id: s.session_id, tab_id: tabId, url: now.url || now.pendingUrl || "", asked });
    return {
      tab_id: tabId,
      window_id: (active ?? moved).windowId,
      index: (active ?? moved).index,
      from,
      asked,
      current_tab_id: s.current_tab_id,
    };
  } finally {
    if (underway.get(tabId) === session.session_id) underway.delete(tabId);
  }
}

export async function returnTab(p: ParsedParams<"tab.return">): Promise<Result<"tab.return">> {
  const s = requireSession(p.session_id);
  const tab = await browser.tabs.get(p.tab_id).catch(() => undefined);
  if (assertOwned(p.tab_id, s.session_id, allSessions(), tab !== undefined) !== "borrowed") {
    throw new BskError("invalid_params", `tab ${p.tab_id} was not borrowed; it is the session's own`, {
      data: { reason: "not_borrowed", tab_id: p.tab_id },
    });
  }
  // Tabs the lent page opened are the session's, yet their pages can reach it: they must not outlive the loan.
  const opened = (await linkedTabs(p.tab_id)).filter((id) => ownerOfTab(id)?.session.session_id === s.session_id);
  const closed: number[] = [];
  const placed = await sending({ sessionId: s.session_id }, async () => {
    for (const id of opened) {
      await browser.tabs.remove(id).then(
        () => closed.push(id),
        () => undefined,
      );
    }
    return giveBack(s, p.tab_id).catch((err: unknown) => {
      throw err instanceof BskError ? err : new BskError("cdp_failed", `tab ${p.tab_id} could not be moved back: ${errorMessage(err)}`);
    });
  });
  return { tab_id: p.tab_id, ...placed, closed_tab_ids: closed, current_tab_id: s.current_tab_id };
}

/** The tab, if `s` may ask to borrow it now; else the refusal. */
export async function eligibleTab(s: SessionState, tabId: number): Promise<Browser.tabs.Tab> {
  const tab = await browser.tabs.get(tabId).catch(() => undefined);
  if (!tab) throw new BskError("not_found", `no tab ${tabId}`, { data: { tab_id: tabId } });
  const win = await browser.windows.get(tab.windowId).catch(() => undefined);
  const linked = (await linkedTabs(tabId)).filter((id) => ownerOfTab(id)?.session.session_id !== s.session_id);
  const refusal = borrowRefusal(s.session_id, {
    tab_id: tabId,
    url: tab.url || tab.pendingUrl || "",
    incognito: tab.incognito,
    window_type: win?.type ?? "unknown",
    owner_session_id: ownerOfTab(tabId)?.session.session_id,
    window_session_id: sessionByWindow(tab.windowId)?.session_id,
    linked_tab_ids: linked,
  });
  if (refusal) throw refusal;
  return tab;
}

export function noBorrow(sessionId: string, tabId: number): BskError {
  return new BskError("permission_denied", `session ${sessionId} was started with --no-borrow: it takes no tab of the person's`, {
    hint: "Start a session without --no-borrow to work in the person's tabs.",
    data: { reason: "borrow_denied", detail: "no_borrow", tab_id: tabId },
  });
}

function siteOf(tab: Browser.tabs.Tab): string {
  const url = tab.url || tab.pendingUrl || "";
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Whether the window is a session's Agent Window (never where a tab of the person's goes back to). */
export function isAgentWindow(windowId: number): boolean {
  return sessionByWindow(windowId) !== undefined;
}

function only(moved: Browser.tabs.Tab | Browser.tabs.Tab[]): Browser.tabs.Tab {
  return Array.isArray(moved) ? moved[0]! : moved;
}

/** Whether a borrow asks the person: always for a session whose agent is on a remote server, else as the switch says. */
export function mustAsk(session: { remote_host?: string }, confirmSwitch: boolean): boolean {
  return session.remote_host !== undefined || confirmSwitch;
}
