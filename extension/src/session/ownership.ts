/**
 * Keeps ownership right as the browser changes under the sessions:
 * - a tab opened by an owned tab's page (window.open, target=_blank, OAuth popups) joins that tab's session as
 *   "opened", in whatever window it is;
 * - an owned tab that closes leaves its session (tab.closed); its main-frame navigations are reported (navigation);
 * - an owned tab the browser gives a new id (a discarded page: cdp/runaway.ts) stays the session's (tab.replaced);
 * - an Agent Window closed by the person ends its session (session.ended, reason window_closed); so does a group
 *   session's group (reason group_closed: its last tab closed) or the window that holds it;
 * - a group session's popups join its group; its group moving to another window moves the session with it.
 * A person's tab opened in or dragged into an Agent Window is never adopted: it has no owned opener. One dragged into
 * a session's group is a lend (features/borrow/drag.ts).
 */
import { browser } from "wxt/browser";
import { requestReason, transitionOf } from "../cdp/nav-reasons.ts";
import { sparedFromDiscard } from "../cdp/runaway.ts";
import { emit, emitBurst } from "../ports/outbox.ts";
import { joinGroup } from "./groups.ts";
import {
  adoptTab,
  allSessions,
  dropTab,
  endByPerson,
  isClosing,
  ownerOfTab,
  sessionByGroup,
  sessionByWindow,
  sessionsReady,
  setCurrent,
  setGroupWindow,
} from "./sessions.ts";

/** Borrowed tabs that went down with an Agent Window the person is closing, by window id. */
const lostWithWindow = new Map<number, number[]>();

export function installOwnershipListeners(): void {
  // A hung page of the person's is never discarded to free the tab (runaway.ts): what they had in it stays.
  sparedFromDiscard((tabId) => ownerOfTab(tabId)?.ownership === "borrowed");
  // Only a page can create a navigation target (window.open, target=_blank, a link opened in a new tab), so this
  // is the evidence. tabs.onCreated's openerTabId is not: Chromium also sets it for a tab the person opens next
  // to the active one (Ctrl-T, DevTools Target.createTarget), which must stay the person's.
  browser.webNavigation.onCreatedNavigationTarget.addListener((d) => void adoptOpened(d.sourceTabId, d.tabId, d.url));
  browser.webNavigation.onCommitted.addListener((d) => {
    if (d.frameId === 0) {
      const transition = transitionOf(d.transitionType, requestReason(d.tabId, d.url));
      void reportNavigation(d.tabId, d.url, [transition, ...d.transitionQualifiers].join("+"));
    }
  });
  browser.webNavigation.onHistoryStateUpdated.addListener((d) => {
    if (d.frameId === 0) void reportNavigation(d.tabId, d.url, "history_state");
  });
  browser.tabs.onRemoved.addListener((tabId, info) => void onTabRemoved(tabId, info.windowId, info.isWindowClosing));
  browser.tabs.onReplaced.addListener((added, removed) => void onTabReplaced(added, removed));
  browser.windows.onRemoved.addListener((windowId) => void onWindowRemoved(windowId));
  browser.tabGroups.onRemoved.addListener((group) => void onGroupRemoved(group.id));
  browser.tabGroups.onUpdated.addListener((group) => void onGroupUpdated(group.id, group.windowId));
}

async function adoptOpened(openerId: number, tabId: number, url: string): Promise<void> {
  await sessionsReady();
  const opener = ownerOfTab(openerId);
  if (!opener || isClosing(opener.session.session_id) || ownerOfTab(tabId)) return;
  adoptTab(opener.session, tabId, "opened");
  // A popup window cannot hold a group: then the tab is the session's where it is.
  const groupId = opener.session.group_id;
  if (groupId !== undefined) await joinGroup(groupId, tabId).catch(() => undefined);
  emit("tab.opened", { session_id: opener.session.session_id, tab_id: tabId, opener_tab_id: openerId, url });
}

async function reportNavigation(tabId: number, url: string, cause: string): Promise<void> {
  await sessionsReady();
  const owned = ownerOfTab(tabId);
  if (!owned || isClosing(owned.session.session_id)) return;
  const event = { session_id: owned.session.session_id, tab_id: tabId, url, cause };
  // A single-page app can push history entries in a burst: those are coalesced (count); real loads never are.
  if (cause === "history_state") emitBurst("navigation", tabId, event);
  else emit("navigation", event);
}

async function onTabRemoved(tabId: number, windowId: number, isWindowClosing: boolean): Promise<void> {
  await sessionsReady();
  const owned = ownerOfTab(tabId);
  if (!owned || isClosing(owned.session.session_id)) return;
  const s = owned.session;
  const withAgentWindow = isWindowClosing && windowId === s.window_id;
  if (withAgentWindow && owned.ownership === "borrowed") lostWithWindow.set(windowId, [...(lostWithWindow.get(windowId) ?? []), tabId]);
  dropTab(s, tabId);
  // Tabs closing with the Agent Window are reported once, as the session's end.
  if (!withAgentWindow) emit("tab.closed", { session_id: s.session_id, tab_id: tabId });
}

async function onTabReplaced(addedId: number, removedId: number): Promise<void> {
  await sessionsReady();
  const owned = ownerOfTab(removedId);
  if (!owned) return;
  const wasCurrent = owned.session.current_tab_id === removedId;
  adoptTab(owned.session, addedId, owned.ownership, owned.session.borrowed?.[String(removedId)]);
  dropTab(owned.session, removedId);
  if (wasCurrent) setCurrent(owned.session, addedId);
  emit("tab.replaced", { session_id: owned.session.session_id, tab_id: addedId, replaced_tab_id: removedId });
}

async function onWindowRemoved(windowId: number): Promise<void> {
  await sessionsReady();
  const lost = lostWithWindow.get(windowId) ?? [];
  lostWithWindow.delete(windowId);
  const s = sessionByWindow(windowId);
  if (s) await endByPerson(s.session_id, "window_closed", lost);
  // Group sessions in the person's window that closed.
  const grouped = allSessions().filter((g) => g.group_id !== undefined && g.window_id === windowId);
  await Promise.all(grouped.map((g) => endByPerson(g.session_id, "window_closed", lost)));
}

async function onGroupRemoved(groupId: number): Promise<void> {
  await sessionsReady();
  const s = sessionByGroup(groupId);
  if (s) await endByPerson(s.session_id, "group_closed");
}

async function onGroupUpdated(groupId: number, windowId: number): Promise<void> {
  await sessionsReady();
  const s = sessionByGroup(groupId);
  if (s && !isClosing(s.session_id)) setGroupWindow(s, windowId);
}
