/**
 * Where a tab was before the person's drag of it, so a lend by drag that is refused (drag.ts) puts it back there
 * rather than only out of the group. While the person drags a tab, the browser moves it in the strip as the pointer
 * goes (tabs.onMoved), in and out of groups it slides past (tabs.onUpdated groupId) and out of its window
 * (tabs.onDetached); the first of these events since the strip last stood still says where the drag began: its
 * window, its index and the group it was in. The browser tells a group change before the move that made it (the
 * changed tab already has its new index), so a drag that began with a group change takes its index from its first
 * move. The strip stands still again once the browser accepts tab-strip edits
 * (groups.ts dragSettled); with no group session live nothing needs it, and a move that was no drag (bsk's own,
 * a keyboard shortcut, another extension) ends at once the same way.
 */
import { browser, type Browser } from "wxt/browser";
import { dragSettled, isOurMove } from "../../session/groups.ts";
import { allSessions, sessionsReady } from "../../session/sessions.ts";

export interface DragStart {
  window_id: number;
  index: number;
  /** The group it was in, -1 for none. */
  group_id: number;
}

const NO_GROUP = -1;

const dragStartState = {
  /** Tab → its group, as the browser last told (tabs.query once per worker life, then every group change). */
  groups: new Map<number, number>(),
  /** Tab → where its drag under way began; `moved` once a move said its index (the object is the one handed out). */
  starts: new Map<number, { start: DragStart; moved: boolean }>(),
};

export function installDragStart(): void {
  void browser.tabs.query({}).then((tabs) => {
    for (const t of tabs)
      if (t.id !== undefined && !dragStartState.groups.has(t.id)) dragStartState.groups.set(t.id, t.groupId ?? NO_GROUP);
  });
  browser.tabs.onMoved.addListener((tabId, info) => {
    const drag = dragStartState.starts.get(tabId);
    if (drag && !drag.moved && !isOurMove(tabId)) {
      drag.moved = true;
      drag.start.index = info.fromIndex;
      drag.start.window_id = info.windowId;
    }
    began(tabId, { window_id: info.windowId, index: info.fromIndex, group_id: groupOf(tabId) }, true);
  });
  browser.tabs.onDetached.addListener((tabId, info) => {
    began(tabId, { window_id: info.oldWindowId, index: info.oldPosition, group_id: groupOf(tabId) }, true);
  });
  browser.tabs.onRemoved.addListener((tabId) => {
    dragStartState.groups.delete(tabId);
    dragStartState.starts.delete(tabId);
  });
}

/**
 * The tab's group changed (tabs.onUpdated): noted, and where its drag began is returned (this change may be its
 * first step). Called by drag.ts's listener before anything is awaited, so the answer is from before this change; the
 * object handed out still learns its index from the move the browser tells next, if this change began the drag.
 */
export function groupChanged(tabId: number, groupId: number, tab: Browser.tabs.Tab): DragStart {
  const before = { window_id: tab.windowId, index: tab.index, group_id: groupOf(tabId) };
  began(tabId, before, false);
  dragStartState.groups.set(tabId, groupId);
  return dragStartState.starts.get(tabId)?.start ?? before;
}

function groupOf(tabId: number): number {
  return dragStartState.groups.get(tabId) ?? NO_GROUP;
}

function began(tabId: number, before: DragStart, moved: boolean): void {
  if (isOurMove(tabId) || dragStartState.starts.has(tabId)) return;
  const drag = { start: before, moved };
  dragStartState.starts.set(tabId, drag);
  void stoodStill().then(() => {
    if (dragStartState.starts.get(tabId) === drag) dragStartState.starts.delete(tabId);
  });
}

/** Once no tab is being dragged (as far as a group session's group can tell; without one it does not matter). */
async function stoodStill(): Promise<void> {
  await sessionsReady();
  const group = allSessions().find((s) => s.group_id !== undefined)?.group_id;
  if (group !== undefined) await dragSettled(group);
}
