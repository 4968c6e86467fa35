/**
 * The person's drags in the tab strip around a group session (`session start --where group`):
 * - one of their tabs dragged into the session's group is an explicit lend: no prompt (the drag is the consent),
 *   `tab.borrowed` with `lent_by_drag`. Refused when the session was started with --no-borrow or a borrow rule
 *   refuses the tab (a browser page, another session's, linked tabs): nothing of it is read (the debugger never
 *   attaches), it is put back where the drag began (drag-start.ts: its window, index and group), the person is told
 *   why (refusal-notice.ts), and `tab.lend_refused` says why and where it went back to (or that it could not);
 * - a tab of the session's dragged out of its group is taken back at once: its calls running here end user_aborted
 *   (reason taken_back), it is no longer the session's (later calls are refused as for any tab not its own), the
 *   debugger leaves it, and `tab.taken_back` says so.
 * A lend counts where the person drops the tab (a tab dragged past the group joins it on the way); a take-back counts
 * at once, the moment the tab leaves the group, even mid-drag: when in doubt, the tab is the person's.
 * bsk's own group moves (session/groups.ts `ourMove`) are not drags, and neither is a tab a session's page opened:
 * that one joins through ownership.ts. A group is the session's by id only, so a look-alike group is nobody's.
 */
import { browser, type Browser } from "wxt/browser";
import { BskError } from "../../../../protocol/errors.ts";
import { detach } from "../../cdp/debugger.ts";
import { emit } from "../../ports/outbox.ts";
import { dragSettled, isOurMove, outOfGroup } from "../../session/groups.ts";
import { adoptTab, dropTab, isClosing, ownerOfTab, sessionByGroup, sessionsReady } from "../../session/sessions.ts";
import type { SessionState } from "../../session/settings.ts";
import { abortTabCalls } from "../control.ts";
import { eligibleTab, isAgentWindow, noBorrow } from "./borrow.ts";
import { groupChanged, installDragStart, type DragStart } from "./drag-start.ts";
import { tellRefused } from "./refusal-notice.ts";

export function installDragListeners(): void {
  installDragStart();
  browser.tabs.onUpdated.addListener((tabId, change, tab) => {
    if (change.groupId === undefined) return;
    // Whether bsk is moving it, and where the drag began, must be known now, before anything is awaited.
    const from = groupChanged(tabId, change.groupId, tab);
    if (isOurMove(tabId)) return;
    void onGroupChanged(tabId, change.groupId, tab, from).catch((err: unknown) => console.error("bsk: tab group change", err));
  });
}

async function onGroupChanged(tabId: number, groupId: number, tab: Browser.tabs.Tab, from: DragStart): Promise<void> {
  await sessionsReady();
  const owned = ownerOfTab(tabId);
  if (owned) {
    const s = owned.session;
    if (s.group_id !== undefined && s.group_id !== groupId && !isClosing(s.session_id)) await takeBack(s, tabId);
    return;
  }
  const s = sessionByGroup(groupId);
  if (!s || isClosing(s.session_id)) return;
  // Opened by one of the session's pages: ownership.ts adopts it (as opened, not lent).
  if (tab.openerTabId !== undefined && ownerOfTab(tab.openerTabId)?.session === s) return;
  // A tab dragged past the group joins and leaves it on the way: only where the person drops it counts.
  await dragSettled(groupId);
  const now = await browser.tabs.get(tabId).catch(() => undefined);
  if (now?.groupId !== groupId || ownerOfTab(tabId) || isClosing(s.session_id) || sessionByGroup(groupId) !== s) return;
  await lendByDrag(s, now, from);
}

async function takeBack(s: SessionState, tabId: number): Promise<void> {
  abortTabCalls(
    tabId,
    new BskError("user_aborted", `the person took tab ${tabId} back: they dragged it out of the session's group`, {
      data: { reason: "taken_back", tab_id: tabId },
    }),
  );
  dropTab(s, tabId);
  emit("tab.taken_back", { session_id: s.session_id, tab_id: tabId, reason: "dragged_out" });
  await detach(tabId);
}

async function lendByDrag(s: SessionState, tab: Browser.tabs.Tab, start: DragStart): Promise<void> {
  const tabId = tab.id!;
  const refusal = s.no_borrow
    ? noBorrow(s.session_id, tabId)
    : await eligibleTab(s, tabId).then(
        () => null,
        (err: unknown) => err,
      );
  if (refusal) {
    const data = refusal instanceof BskError ? (refusal.data as { reason?: string; detail?: string } | undefined) : undefined;
    const reason = data?.detail ?? data?.reason ?? "refused";
    const back = await putBackRefused(s.group_id!, tab, start);
    await tellRefused({ session: s, tab, reason, put_back: back !== null });
    emit("tab.lend_refused", { session_id: s.session_id, tab_id: tabId, reason, put_back: back !== null, ...(back && { back_to: back }) });
    return;
  }
  const from = { window_id: tab.windowId, index: tab.index, pinned: tab.pinned, group_id: -1, muted: tab.mutedInfo?.muted ?? false };
  adoptTab(s, tabId, "borrowed", from);
  emit("tab.borrowed", { session_id: s.session_id, tab_id: tabId, url: tab.url || tab.pendingUrl || "", asked: false, lent_by_drag: true });
}

/**
 * A refused tab goes back where the drag began (into its former group, if that still exists and is not the session's);
 * null when it could not be moved out of the session's group (it was closed meanwhile, or the browser refused).
 */
async function putBackRefused(
  groupId: number,
  tab: Browser.tabs.Tab,
  start: DragStart,
): Promise<{ window_id: number; index: number; group_id: number; fallback: boolean } | null> {
  const tabId = tab.id!;
  const origin = {
    window_id: start.window_id,
    index: start.index,
    group_id: start.group_id === groupId ? -1 : start.group_id,
    pinned: tab.pinned,
    muted: tab.mutedInfo?.muted ?? false,
  };
  const placed = await outOfGroup(groupId, tabId, origin, isAgentWindow).catch((err: unknown) => {
    console.warn("bsk: a refused tab could not be put back", err);
    return null;
  });
  const now = await browser.tabs.get(tabId).catch(() => undefined);
  if (!placed || !now || now.groupId === groupId) return null;
  return { window_id: now.windowId, index: now.index, group_id: now.groupId, fallback: placed.fallback };
}
