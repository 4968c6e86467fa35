/**
 * Where a borrowed tab comes from and where it goes back. No session state here (sessions.ts uses this while
 * closing a session): the caller says which windows are Agent Windows.
 */
import { browser, type Browser } from "wxt/browser";
import type { BorrowOrigin } from "./settings.ts";

const NO_GROUP = -1;

export function originOf(tab: Browser.tabs.Tab): BorrowOrigin {
  return {
    window_id: tab.windowId,
    index: tab.index,
    pinned: tab.pinned,
    group_id: tab.groupId ?? NO_GROUP,
    muted: tab.mutedInfo?.muted ?? false,
  };
}

export interface Placed {
  window_id: number;
  index: number;
  /** The original window was gone (or is an Agent Window): another of the person's windows took it. */
  fallback: boolean;
}

/**
 * Puts a borrowed tab back: its window and index, then its group (if the group still exists), pinned and muted
 * state. A window that is gone or is any session's Agent Window is never the destination: the most recently
 * focused normal window of the person's is, else a new window.
 */
export async function putBack(tabId: number, from: BorrowOrigin, isAgentWindow: (windowId: number) => boolean): Promise<Placed> {
  const home = await personWindow(from.window_id, isAgentWindow);
  let placed: Browser.tabs.Tab;
  let fallback = home === undefined || home !== from.window_id;
  if (home !== undefined) {
    const count = (await browser.tabs.query({ windowId: home })).length;
    const index = fallback ? -1 : Math.min(from.index, count);
    placed = firstTab(await browser.tabs.move(tabId, { windowId: home, index }));
  } else {
    const win = await browser.windows.create({ tabId, focused: false, type: "normal" });
    placed = win?.tabs?.find((t) => t.id === tabId) ?? (await browser.tabs.get(tabId));
    fallback = true;
  }
  if (from.group_id !== NO_GROUP && !fallback) {
    // The group may be gone (its last tab closed meanwhile): then the tab simply stays ungrouped.
    await browser.tabs.group({ groupId: from.group_id, tabIds: [tabId] }).catch(() => undefined);
  }
  const update: Browser.tabs.UpdateProperties = {};
  if (placed.pinned !== from.pinned) update.pinned = from.pinned;
  if ((placed.mutedInfo?.muted ?? false) !== from.muted) update.muted = from.muted;
  if (Object.keys(update).length) await browser.tabs.update(tabId, update);
  // Pinning moves a tab to the end of the pinned strip; grouping next to its group: put it at its index again.
  let now = await browser.tabs.get(tabId);
  if (!fallback && now.index !== from.index && (update.pinned !== undefined || from.group_id !== NO_GROUP)) {
    now = firstTab(await browser.tabs.move(tabId, { index: from.index }).catch(() => now));
  }
  return { window_id: now.windowId, index: now.index, fallback };
}

function firstTab(moved: Browser.tabs.Tab | Browser.tabs.Tab[]): Browser.tabs.Tab {
  return Array.isArray(moved) ? moved[0]! : moved;
}

/**
 * The window a tab goes back to: its own if it still exists as a normal window of the person's, else the most
 * recently focused such window, else the newest one; undefined when there is none (a new window is made).
 */
async function personWindow(original: number, isAgentWindow: (windowId: number) => boolean): Promise<number | undefined> {
  const windows = await browser.windows.getAll({ windowTypes: ["normal"] });
  const eligible = windows.filter((w) => w.id !== undefined && !w.incognito && !isAgentWindow(w.id));
  if (eligible.some((w) => w.id === original)) return original;
  const focused = await browser.windows.getLastFocused({ windowTypes: ["normal"] }).catch(() => undefined);
  if (focused?.id !== undefined && eligible.some((w) => w.id === focused.id)) return focused.id;
  return eligible.map((w) => w.id!).sort((a, b) => b - a)[0];
}
