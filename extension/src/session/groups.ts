/**
 * Tab-group sessions (`session start --where group`): the session's tabs live in a named, coloured tab group in the
 * person's own window instead of an Agent Window. Browser calls only; the session state is sessions.ts's.
 *
 * A group is the session's by its id, remembered when bsk made it; a group the person (or a page) makes with the
 * same title is never taken for it. The moves bsk makes itself (grouping a tab it opened, ungrouping a tab it gives
 * back or refuses) are marked here so the drag listener (features/borrow/drag.ts) does not take them for the
 * person's drags.
 */
import { browser, type Browser } from "wxt/browser";
import { BskError } from "../../../protocol/errors.ts";
import { putBack, type Placed } from "./place.ts";
import type { BorrowOrigin } from "./settings.ts";

const COLORS = ["blue", "cyan", "green", "orange", "pink", "purple", "red", "yellow", "grey"] as const;
const TITLE_MAX = 28;

/** Tab id → how many of bsk's own group moves of it are under way. */
const ourMoves = new Map<number, number>();

/** Runs a group change bsk makes itself: the tab's group events meanwhile are not the person's. */
export async function ourMove<T>(tabId: number, fn: () => Promise<T>): Promise<T> {
  ourMoves.set(tabId, (ourMoves.get(tabId) ?? 0) + 1);
  try {
    return await fn();
  } finally {
    const n = (ourMoves.get(tabId) ?? 1) - 1;
    if (n > 0) ourMoves.set(tabId, n);
    else ourMoves.delete(tabId);
  }
}

export function isOurMove(tabId: number): boolean {
  return ourMoves.has(tabId);
}

/** The group's title: short, naming the session by its label or id. */
export function groupTitle(label: string): string {
  const title = `bsk · ${label}`;
  return title.length > TITLE_MAX ? `${title.slice(0, TITLE_MAX - 1)}…` : title;
}

/** A colour per session, the same every time for the same id. */
export function groupColor(sessionId: string): Browser.tabGroups.Color {
  let h = 0;
  for (const c of sessionId) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return COLORS[h % COLORS.length]! as Browser.tabGroups.Color;
}

/**
 * Opens the session's first tab in a new group in the person's last-focused normal window (not incognito, not an
 * Agent Window). With no such window a new normal window is opened for it: the session still lives among the
 * person's windows, and closing that window ends it as closing the group would.
 */
export async function openGroup(p: {
  sessionId: string;
  label: string;
  focus: boolean;
  isAgentWindow: (windowId: number) => boolean;
}): Promise<{ window_id: number; tab_id: number; group_id: number }> {
  const windowId = await personWindow(p.isAgentWindow);
  let tab: Browser.tabs.Tab | undefined;
  if (windowId === undefined) {
    const win = await browser.windows.create({ type: "normal", url: "about:blank", focused: p.focus });
    tab = win?.tabs?.[0];
  } else {
    tab = await browser.tabs.create({ windowId, url: "about:blank", active: p.focus });
    if (p.focus) await browser.windows.update(windowId, { focused: true }).catch(() => undefined);
  }
  if (tab?.id === undefined) {
    throw new BskError("cdp_failed", "the browser did not open a tab for the session's group", { data: { reason: "tab_create_failed" } });
  }
  const tabId = tab.id;
  const groupId = await ourMove(tabId, () => browser.tabs.group({ tabIds: [tabId], createProperties: { windowId: tab.windowId } }));
  await browser.tabGroups.update(groupId, { title: groupTitle(p.label), color: groupColor(p.sessionId), collapsed: false });
  return { window_id: tab.windowId, tab_id: tabId, group_id: groupId };
}

async function personWindow(isAgentWindow: (windowId: number) => boolean): Promise<number | undefined> {
  const ok = (w: Browser.windows.Window | undefined) => w?.id !== undefined && w.type === "normal" && !w.incognito && !isAgentWindow(w.id);
  const focused = await browser.windows.getLastFocused({ windowTypes: ["normal"] }).catch(() => undefined);
  if (ok(focused)) return focused!.id;
  const all = await browser.windows.getAll({ windowTypes: ["normal"] });
  return all
    .filter(ok)
    .map((w) => w.id!)
    .sort((a, b) => b - a)[0];
}

/** Puts a tab of the session into its group (a tab it opened, a popup of its tabs, a borrowed tab). */
export async function joinGroup(groupId: number, tabId: number): Promise<void> {
  await ourMove(tabId, () => browser.tabs.group({ groupId, tabIds: [tabId] }));
}

/** Takes a tab out of whatever group it is in (a lent tab going back, a refused drag). */
export async function leaveGroup(tabId: number): Promise<void> {
  await ourMove(tabId, () => browser.tabs.ungroup(tabId));
}

/**
 * A tab leaves the session's group for where it came from (a lent tab going back, a refused drag). Moving it within
 * the strip may drop it back in, so it is taken out again if so. A step the browser refuses because the person is
 * still dragging a tab is tried again once the drag is over; any other failure is thrown.
 */
export function outOfGroup(
  groupId: number,
  tabId: number,
  origin: BorrowOrigin,
  isAgentWindow: (windowId: number) => boolean,
): Promise<Placed> {
  return ourMove(tabId, async () => {
    await afterDrag(groupId, () => leaveGroup(tabId));
    const placed = await afterDrag(groupId, () => putBack(tabId, origin, isAgentWindow));
    if ((await browser.tabs.get(tabId)).groupId === groupId) await afterDrag(groupId, () => leaveGroup(tabId));
    return placed;
  });
}

const DRAGGING = /dragging/i;
const SETTLE_STEP_MS = 100;
const SETTLE_MAX_MS = 30_000;
/** A refused edit is tried again after this many drags at most: a person does not drag without end. */
const AFTER_DRAG_TRIES = 3;

/** Runs a tab-strip edit; refused while the person drags a tab ("user may be dragging a tab"), again once it is over. */
async function afterDrag<T>(groupId: number, edit: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await edit();
    } catch (err) {
      if (!DRAGGING.test(String(err)) || tries >= AFTER_DRAG_TRIES) throw err;
      await dragSettled(groupId);
    }
  }
}

/**
 * Resolves once the person is not dragging a tab in the group's window any more. While a drag is under way Chrome
 * moves the dragged tab in and out of groups as it slides past them, and refuses every tab-strip edit ("Tabs cannot
 * be edited right now (user may be dragging a tab)"); no event says the drag ended, so an edit that changes nothing
 * is tried until it is accepted. This waits on the person's hand, not on bsk: it synchronises nothing of ours.
 */
export async function dragSettled(groupId: number): Promise<void> {
  const deadline = Date.now() + SETTLE_MAX_MS;
  for (;;) {
    const err = await browser.tabGroups.update(groupId, {}).then(
      () => null,
      (e: unknown) => String(e),
    );
    if (err === null || !DRAGGING.test(err) || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_STEP_MS));
  }
}

/** The group's window, or undefined when the group is gone. */
export async function groupWindow(groupId: number): Promise<number | undefined> {
  const g = await browser.tabGroups.get(groupId).catch(() => undefined);
  return g?.windowId;
}
