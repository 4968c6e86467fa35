/** tab.list / tab.create / tab.select / tab.close; tab.borrow / tab.return live in features/borrow/. */
import { browser, type Browser } from "wxt/browser";
import type { Result } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";
import type { tabMethods } from "../../../protocol/methods/tabs.ts";
import type { FamilyHandlers } from "../shared/handler.ts";
import { borrowTab, returnTab } from "../features/borrow/borrow.ts";
import { emit } from "../ports/outbox.ts";
import { assertSessionMayOpen } from "../session/file-urls.ts";
import { assertOwned, ownerOf, restrictedUrlError } from "../session/scope.ts";
import { groupTitle, groupWindow, joinGroup } from "../session/groups.ts";
import { adoptTab, allSessions, dropTab, requireSession, resolveTab, setCurrent, setGroupWindow } from "../session/sessions.ts";
import type { SessionState } from "../session/settings.ts";
import { normalizeUrl } from "../../../protocol/urls.ts";
import { outlineUrl } from "../shared/urls.ts";
import { sending } from "../session/input-mark.ts";

type TabInfo = Result<"tab.create">;

/**
 * A tab as the calling session sees it; another session's tab never names that session. Only the session's own tabs
 * (created, opened, lent to it) show their full URL; the others show origin and path (urls.ts outlineUrl).
 */
export function tabInfo(tab: Browser.tabs.Tab, caller: SessionState): TabInfo {
  const tabId = tab.id!;
  const who = ownerOf(tabId, caller.session_id, allSessions());
  const url = tab.url || tab.pendingUrl || "";
  const info: TabInfo = {
    tab_id: tabId,
    window_id: tab.windowId,
    index: tab.index,
    url: who.owner === "session" ? url : outlineUrl(url),
    title: tab.title ?? "",
    active: tab.active,
    owner: who.owner,
  };
  if (who.owner === "session") {
    info.owner_session_id = caller.session_id;
    info.ownership = who.ownership;
    info.current = caller.current_tab_id === tabId;
  }
  if (caller.group_id !== undefined && tab.groupId === caller.group_id) {
    info.group = { id: caller.group_id, title: groupTitle(caller.name || caller.session_id) };
  }
  return info;
}

const SCOPE_OWNERS = { owned: ["session"], user: ["person"], all: ["session", "other_session", "person"] } as const;

export const tabHandlers: FamilyHandlers<typeof tabMethods> = {
  "tab.list": async (p) => {
    const s = requireSession(p.session_id);
    // What the person has open (titles, sites) is theirs, like their logins: an isolated session sees its own tabs.
    if (s.isolated && p.scope !== "owned") {
      throw new BskError("permission_denied", `session ${s.session_id} is isolated: it does not see the person's tabs or other sessions'`, {
        data: { reason: "isolated_session", scope: p.scope },
      });
    }
    const wanted: readonly string[] = SCOPE_OWNERS[p.scope];
    const tabs = (await browser.tabs.query({})).map((t) => tabInfo(t, s)).filter((t) => wanted.includes(t.owner));
    return { current_tab_id: s.current_tab_id, tabs, ...(s.isolated && { isolated: true }) };
  },

  "tab.create": async (p) => {
    const s = requireSession(p.session_id);
    const url = normalizeUrl(p.url);
    // A blob: belongs to the page that made it; a new tab has none.
    if (/^blob:/i.test(url)) throw restrictedUrlError(url);
    await assertSessionMayOpen(s, url);
    if (s.group_id !== undefined) setGroupWindow(s, (await groupWindow(s.group_id)) ?? s.window_id);
    const create = () =>
      browser.tabs.create({ windowId: s.window_id, url, active: !p.background }).catch((err: unknown) => {
        throw new BskError("not_found", `the Agent Window of session ${s.session_id} is gone: ${String(err)}`, {
          data: { reason: "session_ended" },
        });
      });
    const tab = await sending({ sessionId: s.session_id }, create);
    adoptTab(s, tab.id!, "created");
    if (s.group_id !== undefined) await joinGroup(s.group_id, tab.id!);
    setCurrent(s, tab.id!);
    emit("tab.opened", { session_id: s.session_id, tab_id: tab.id!, url });
    return tabInfo(s.group_id === undefined ? tab : await browser.tabs.get(tab.id!), s);
  },

  "tab.select": async (p) => {
    const { session, tabId } = await resolveTab(p);
    const tab = await sending({ sessionId: session.session_id }, () => browser.tabs.update(tabId, { active: true }));
    setCurrent(session, tabId);
    return tabInfo(tab ?? (await browser.tabs.get(tabId)), session);
  },

  "tab.close": async (p) => {
    const s = requireSession(p.session_id);
    const tabId = p.tab_id ?? s.current_tab_id;
    if (tabId === null) throw new BskError("not_found", "no tab given and no current tab", { data: { reason: "no_current_tab" } });
    const tab = await browser.tabs.get(tabId).catch(() => undefined);
    const ownership = assertOwned(tabId, s.session_id, allSessions(), tab !== undefined);
    if (ownership === "borrowed") {
      throw new BskError("permission_denied", `tab ${tabId} is the person's (borrowed); it cannot be closed`, {
        hint: "Give it back with bsk tab return instead.",
        data: { reason: "borrowed_tab", tab_id: tabId },
      });
    }
    const replacement = await sending({ sessionId: s.session_id }, () => keepWindowOpen(s, tab!));
    dropTab(s, tabId);
    if (replacement !== null && s.current_tab_id === null) setCurrent(s, replacement);
    emit("tab.closed", { session_id: s.session_id, tab_id: tabId });
    await browser.tabs.remove(tabId).catch(() => undefined);
    return { closed_tab_id: tabId, current_tab_id: s.current_tab_id };
  },

  "tab.borrow": (p, ctx) => borrowTab(p, ctx.signal),
  "tab.return": (p) => returnTab(p),
};

/**
 * Closing the Agent Window's last tab (or the group's) would close the window (the group) and with it the session,
 * as if the person had closed it. So it first gets a blank owned tab. Returns that tab's id, or null when none was needed.
 */
async function keepWindowOpen(s: SessionState, closing: Browser.tabs.Tab): Promise<number | null> {
  const grouped = s.group_id !== undefined;
  if (grouped ? closing.groupId !== s.group_id : closing.windowId !== s.window_id) return null;
  const left = await browser.tabs.query(grouped ? { groupId: s.group_id! } : { windowId: s.window_id });
  if (left.length > 1) return null;
  const blank = await browser.tabs.create({ windowId: closing.windowId, url: "about:blank", active: true });
  adoptTab(s, blank.id!, "created");
  if (grouped) await joinGroup(s.group_id!, blank.id!);
  emit("tab.opened", { session_id: s.session_id, tab_id: blank.id!, url: "about:blank" });
  return blank.id!;
}
