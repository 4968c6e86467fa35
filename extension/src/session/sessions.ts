/**
 * Sessions, their Agent Windows and the tabs they own. The service worker can die at any time, so the state is
 * mirrored (small) into chrome.storage.session after every change and reloaded on wake-up.
 *
 * Current tab: set by tab.create / tab.select (and session.open). When the current tab closes, the most recently
 * current owned tab that is still open becomes current; if there is none, current is null.
 */
import { browser, type Browser } from "wxt/browser";
import { BskError } from "../../../protocol/errors.ts";
import { putBack, type Placed } from "./place.ts";
import { endSessionCalls } from "./session-calls.ts";
import { groupWindow, outOfGroup } from "./groups.ts";
import { detach } from "../cdp/debugger.ts";
import { emit } from "../ports/outbox.ts";
import { forgetSession as forgetRefs } from "../cdp/refs/table.ts";
import { assertSessionMayOpen } from "./file-urls.ts";
import { assertOwned, ownerOf, type Ownership } from "./scope.ts";
import { LOCAL, readLeftSessions, readStoredSessions, SESSION, type BorrowOrigin, type SessionState } from "./settings.ts";

/** The sessions, mirrored into storage.session: loaded once per worker life, written back after each change. */
interface SessionsState {
  sessions: Map<string, SessionState>;
  /** Sessions being closed by us: their window and tab removals are not the person's doing. */
  closing: Set<string>;
  loaded: Promise<void> | null;
  persistQueued: boolean;
  /** What storage.local's copy holds (JSON), so an unchanged state is not written again. */
  leftCopy: string | undefined;
}
const sessionsState: SessionsState = {
  sessions: new Map<string, SessionState>(),
  closing: new Set<string>(),
  loaded: null,
  persistQueued: false,
  leftCopy: undefined,
};

const RECENT_MAX = 16;

/** Loads the stored sessions once per service-worker life, dropping what the browser no longer has. */
export function sessionsReady(): Promise<void> {
  sessionsState.loaded ??= load().catch((err: unknown) => console.error("bsk: could not reload sessions", err));
  return sessionsState.loaded;
}

async function load(): Promise<void> {
  const [here, windows, tabs] = await Promise.all([readStoredSessions(), browser.windows.getAll(), browser.tabs.query({})]);
  const stored = here ?? {};
  const left = here === undefined ? await readLeftSessions() : [];
  const windowIds = new Set(windows.map((w) => w.id));
  const tabIds = new Set(tabs.map((t) => t.id));
  const gone: [string, string][] = [];
  for (const s of Object.values(stored)) {
    keepLiveTabs(s, tabIds);
    sessionsState.sessions.set(s.session_id, s);
    if (s.group_id !== undefined) {
      // The group may have moved to another window meanwhile; gone, it was closed.
      const windowId = await groupWindow(s.group_id);
      if (windowId === undefined) gone.push([s.session_id, "group_closed"]);
      else s.window_id = windowId;
    } else if (!windowIds.has(s.window_id)) gone.push([s.session_id, "window_closed"]);
  }
  const orphans = await leftOpen(left, tabIds);
  persist();
  // Windows and groups that went while the worker was asleep: the person closed them.
  await Promise.all(gone.map(([id, reason]) => endByPerson(id, reason)));
  await Promise.all(orphans.map(([id, reason]) => endByPerson(id, reason)));
}

/** Drops the tabs the browser no longer has, and what hangs on them. */
function keepLiveTabs(s: SessionState, tabIds: Set<number | undefined>): void {
  for (const id of Object.keys(s.tabs)) if (!tabIds.has(Number(id))) delete s.tabs[id];
  for (const id of Object.keys(s.borrowed ?? {})) if (s.tabs[id] !== "borrowed") delete s.borrowed![id];
  for (const id of Object.keys(s.borrowed_at ?? {})) if (s.tabs[id] !== "borrowed") delete s.borrowed_at![id];
  s.recent = (s.recent ?? []).filter((id) => s.tabs[String(id)]);
  if (s.current_tab_id !== null && !s.tabs[String(s.current_tab_id)]) s.current_tab_id = s.recent.at(-1) ?? null;
}

/**
 * Sessions the extension's previous instance left open (it was reloaded or updated: the browser dropped its state
 * and its debugger, not its windows). Those whose tabs are still here are taken in to be ended like any other
 * (borrowed tabs go back, the session's own tabs close): reason extension_reloaded. An isolated session whose tabs
 * cannot be seen because bsk was just refused Incognito is said to have ended so (its window is out of reach).
 * After a browser restart nothing of theirs is here, and they are dropped.
 */
async function leftOpen(left: SessionState[], tabIds: Set<number | undefined>): Promise<[string, string][]> {
  const ended: [string, string][] = [];
  for (const s of left) {
    if (sessionsState.sessions.has(s.session_id)) continue;
    keepLiveTabs(s, tabIds);
    if (Object.keys(s.tabs).length > 0) {
      sessionsState.sessions.set(s.session_id, s);
      ended.push([s.session_id, "extension_reloaded"]);
    } else if (s.isolated && !(await browser.extension.isAllowedIncognitoAccess().catch(() => false))) {
      emit("session.ended", { session_id: s.session_id, reason: "incognito_access_removed", lost_tab_ids: [] });
    }
  }
  return ended;
}

const changeListeners: (() => void)[] = [];

/** Called (batched, after the current task) whenever a session or its tabs change; e.g. to keep blocking rules in step. */
export function onSessionsChanged(fn: () => void): void {
  changeListeners.push(fn);
}

function persist(): void {
  if (sessionsState.persistQueued) return;
  sessionsState.persistQueued = true;
  queueMicrotask(() => {
    sessionsState.persistQueued = false;
    for (const fn of changeListeners) fn();
    const all = Object.fromEntries(sessionsState.sessions);
    browser.storage.session.set({ [SESSION.sessions]: all }).catch((err: unknown) => console.error("bsk: could not save sessions", err));
    // The copy a reloaded extension reads (leftOpen), written only when the sessions changed.
    const copy = JSON.stringify(all);
    if (copy === sessionsState.leftCopy) return;
    sessionsState.leftCopy = copy;
    browser.storage.local.set({ [LOCAL.sessionsLeft]: all }).catch((err: unknown) => console.error("bsk: could not save sessions", err));
  });
}

export function allSessions(): SessionState[] {
  return [...sessionsState.sessions.values()];
}

export function getSession(id: string): SessionState | undefined {
  return sessionsState.sessions.get(id);
}

export function requireSession(id: string): SessionState {
  const s = sessionsState.sessions.get(id);
  if (!s || sessionsState.closing.has(id)) {
    throw new BskError("not_found", `no live session ${id} in this browser`, { data: { reason: "session_ended", session_id: id } });
  }
  return s;
}

/** The session whose Agent Window this is (a group session's window is the person's, never an Agent Window). */
export function sessionByWindow(windowId: number): SessionState | undefined {
  for (const s of sessionsState.sessions.values()) if (s.window_id === windowId && s.group_id === undefined) return s;
  return undefined;
}

/** The session whose tab group this is (by the id bsk made it with, never by its title). */
export function sessionByGroup(groupId: number): SessionState | undefined {
  if (groupId < 0) return undefined;
  for (const s of sessionsState.sessions.values()) if (s.group_id === groupId) return s;
  return undefined;
}

/** A group session's group moved to another window (the person dragged it there). */
export function setGroupWindow(s: SessionState, windowId: number): void {
  if (s.window_id === windowId) return;
  s.window_id = windowId;
  persist();
}

export function ownerOfTab(tabId: number): { session: SessionState; ownership: Ownership } | undefined {
  for (const s of sessionsState.sessions.values()) {
    const ownership = s.tabs[String(tabId)];
    if (ownership) return { session: s, ownership };
  }
  return undefined;
}

export function isClosing(sessionId: string): boolean {
  return sessionsState.closing.has(sessionId);
}

export function addSession(init: {
  session_id: string;
  name?: string;
  window_id: number;
  tab_id: number;
  allow_origins?: string[];
  block_requests?: boolean;
  remote_host?: string;
  isolated?: boolean;
  group_id?: number;
  no_borrow?: boolean;
  confirm_writes?: boolean;
}): SessionState {
  const s: SessionState = {
    session_id: init.session_id,
    window_id: init.window_id,
    current_tab_id: init.tab_id,
    tabs: { [init.tab_id]: "created" },
    recent: [init.tab_id],
  };
  if (init.name) s.name = init.name;
  if (init.remote_host !== undefined) s.remote_host = init.remote_host;
  if (init.isolated) s.isolated = true;
  if (init.group_id !== undefined) s.group_id = init.group_id;
  if (init.no_borrow) s.no_borrow = true;
  if (init.confirm_writes) s.confirm_writes = true;
  if (init.allow_origins?.length) {
    s.allow_origins = init.allow_origins;
    if (init.block_requests) s.block_requests = true;
  }
  sessionsState.sessions.set(s.session_id, s);
  persist();
  return s;
}

/** `from`: where a borrowed tab came from (it goes back there); the borrow's consent is now. */
export function adoptTab(s: SessionState, tabId: number, ownership: Ownership, from?: BorrowOrigin): void {
  s.tabs[String(tabId)] = ownership;
  if (from) {
    (s.borrowed ??= {})[String(tabId)] = from;
    (s.borrowed_at ??= {})[String(tabId)] = Date.now();
  }
  persist();
}

/**
 * When the person lent this tab (ms since the epoch), 0 for a tab the session did not borrow. A borrowed tab whose
 * moment is unknown counts from now: what came before is the person's.
 */
export function borrowedSince(tabId: number): number {
  const owner = ownerOfTab(tabId);
  if (owner?.ownership !== "borrowed") return 0;
  return owner.session.borrowed_at?.[String(tabId)] ?? Date.now();
}

export function setCurrent(s: SessionState, tabId: number): void {
  s.current_tab_id = tabId;
  s.recent = [...s.recent.filter((id) => id !== tabId), tabId].slice(-RECENT_MAX);
  persist();
}

/** Forgets an owned tab; if it was current, the most recently current owned tab takes over (or none). */
export function dropTab(s: SessionState, tabId: number): void {
  delete s.tabs[String(tabId)];
  if (s.borrowed) delete s.borrowed[String(tabId)];
  if (s.borrowed_at) delete s.borrowed_at[String(tabId)];
  s.recent = s.recent.filter((id) => id !== tabId);
  if (s.current_tab_id === tabId) s.current_tab_id = s.recent.at(-1) ?? null;
  persist();
}

/**
 * The tab a tab-scoped call acts on when the session's own records say it owns it, with no browser call: a page read
 * that changes nothing may start there while resolveTab's checks run (page/shown.ts frontTabAhead). null when the
 * records do not say so; resolveTab then tells why.
 */
export function ownedTabNow(p: { session_id: string; tab_id?: number }): number | null {
  const session = requireSession(p.session_id);
  const tabId = p.tab_id ?? session.current_tab_id;
  if (tabId === null) return null;
  return ownerOf(tabId, session.session_id, sessionsState.sessions.values()).owner === "session" ? tabId : null;
}

/** The owned tab a tab-scoped call acts on: `tab_id` or the current tab, checked against the scope rule. */
export async function resolveTab(p: {
  session_id: string;
  tab_id?: number;
}): Promise<{ session: SessionState; tab: Browser.tabs.Tab; tabId: number }> {
  const session = requireSession(p.session_id);
  const tabId = p.tab_id ?? session.current_tab_id;
  if (tabId === null) {
    throw new BskError("not_found", `session ${session.session_id} has no current tab`, { data: { reason: "no_current_tab" } });
  }
  const tab = await browser.tabs.get(tabId).catch(() => undefined);
  assertOwned(tabId, session.session_id, sessionsState.sessions.values(), tab !== undefined);
  // Both what the tab shows and where it is going: a tab on its way to a browser page is refused already.
  for (const url of new Set([tab!.url || tab!.pendingUrl || "", tab!.pendingUrl ?? ""]))
    if (url) await assertSessionMayOpen(session, url, tabId);
  return { session, tab: tab!, tabId };
}

/**
 * Gives a borrowed tab back to the person (see borrow/place.ts for where it goes): the debugger leaves it and it
 * is no session's any more. If it cannot be moved it stays borrowed and the error is thrown.
 */
export async function giveBack(s: SessionState, tabId: number): Promise<Placed> {
  const from = s.borrowed?.[String(tabId)];
  const isAgentWindow = (windowId: number) => sessionByWindow(windowId) !== undefined;
  // No recorded origin (should not happen): any normal window of the person's will do.
  const origin = from ?? { window_id: -1, index: -1, pinned: false, group_id: -1, muted: false };
  const placed =
    s.group_id === undefined ? await putBack(tabId, origin, isAgentWindow) : await outOfGroup(s.group_id, tabId, origin, isAgentWindow);
  dropTab(s, tabId);
  emit("tab.returned", { session_id: s.session_id, tab_id: tabId, window_id: placed.window_id, fallback: placed.fallback });
  await detach(tabId);
  return placed;
}

/**
 * Ends a session on the browser side: borrowed tabs go back to the person first, then its own tabs close one by
 * one (so nothing of the person's goes with the window), debugger detached, state forgotten. A person's tab that
 * was dragged into the Agent Window stays, and so does the window around it; so does a borrowed tab that could
 * not be moved back. Idempotent: an unknown session closes nothing.
 */
/** Whether the person holds the session now (Take over); features/control.ts tells (it sits above this layer). */
let personHolds: (sessionId: string) => Promise<boolean> = async () => false;
export function setPersonHolds(holds: (sessionId: string) => Promise<boolean>): void {
  personHolds = holds;
}

/**
 * Ends the session in the browser: borrowed tabs go back, its own tabs close one by one. Unless the person holds it
 * (they took over and are working in its tabs, e.g. typing a code): then its own tabs are left open with them, only
 * bsk's debugger leaves, whoever ended it (the agent, its lease, the daemon) — except the person themselves (`byPerson`).
 */
export async function closeSession(
  sessionId: string,
  opts: { byPerson?: boolean } = {},
): Promise<{ closed_tab_ids: number[]; returned_tab_ids: number[]; left_tab_ids?: number[] }> {
  const s = sessionsState.sessions.get(sessionId);
  if (!s || sessionsState.closing.has(sessionId)) return { closed_tab_ids: [], returned_tab_ids: [] };
  sessionsState.closing.add(sessionId);
  const closed: number[] = [];
  const returned: number[] = [];
  const left: number[] = [];
  // Any doubt (the control state unreadable) leaves the tabs: closing what the person works in cannot be undone.
  const leave = !opts.byPerson && (await personHolds(sessionId).catch(() => true));
  try {
    for (const [id, ownership] of Object.entries(s.tabs)) {
      if (ownership !== "borrowed") continue;
      const tabId = Number(id);
      try {
        await giveBack(s, tabId);
        returned.push(tabId);
      } catch (err) {
        console.error(`bsk: could not return tab ${tabId}; it stays in the Agent Window`, err);
        await detach(tabId);
      }
    }
    for (const [id, ownership] of Object.entries(s.tabs)) {
      if (ownership === "borrowed") continue;
      const tabId = Number(id);
      if (leave) {
        await detach(tabId);
        left.push(tabId);
        continue;
      }
      try {
        await browser.tabs.remove(tabId);
        closed.push(tabId);
      } catch {
        /* already gone */
      }
    }
    // An isolated session's incognito window holds nothing of the person's logins: it goes whole.
    if (s.isolated && !left.length) await browser.windows.remove(s.window_id).catch(() => undefined);
  } finally {
    sessionsState.sessions.delete(sessionId);
    sessionsState.closing.delete(sessionId);
    persist();
    void forgetRefs(sessionId).catch(() => undefined);
  }
  return { closed_tab_ids: closed, returned_tab_ids: returned, ...(left.length && { left_tab_ids: left }) };
}

/** The person ended the session (closed its window, pressed Stop): tell the daemon, then clean up. */
export async function endByPerson(sessionId: string, reason: string, lostTabIds: number[] = [], cause?: string): Promise<void> {
  if (!sessionsState.sessions.has(sessionId) || sessionsState.closing.has(sessionId)) return;
  emit("session.ended", { session_id: sessionId, reason, lost_tab_ids: lostTabIds, ...(cause && { cause }) });
  endSessionCalls(sessionId, reason);
  await closeSession(sessionId, { byPerson: true });
}
