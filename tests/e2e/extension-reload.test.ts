/**
 * The extension reloads while a session is live (its update, the person's reload on chrome://extensions, Allow in
 * Incognito switched): the browser drops the extension's state and its debugger, not its windows. The next instance
 * ends what the last one left open, as a session's end does, and says why.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { DEVELOPER_MODE, onExtensionsPage, relinkedAfter } from "./extensions-page.ts";
import { startWorld, until, type World } from "./harness.ts";
import { evalInPage } from "./page-eval.ts";

let w: World;

beforeAll(async () => {
  w = await startWorld({});
  await onExtensionsPage(w, DEVELOPER_MODE);
}, 60_000);

afterAll(async () => {
  await w?.stop();
});

const chrome = (expression: string) => w.person.asExtension(expression);

/** Every window and its tabs (id, url), as the person's hands see them. */
async function windows(): Promise<{ id: number; tabs: [number, string][] }[]> {
  return chrome(
    `chrome.windows.getAll({ populate: true }).then((ws) => ws.map((x) => ({ id: x.id, tabs: x.tabs.map((t) => [t.id, t.url]) })))`,
  );
}

async function ended(s: string): Promise<any> {
  return until(`session ${s} to end`, async () => {
    const r = await w.ok(["session", "list"]);
    const mine = r.sessions.find((x: any) => x.session_id === s);
    return mine?.state === "ended" && mine.end_reason !== "not_adoptable" ? mine : undefined;
  });
}

test("reloaded mid-session: the session ends extension_reloaded, the lent tab goes back, the session's own tabs and window close", async () => {
  await chrome(`chrome.storage.local.set({ confirm_borrow: false })`);
  const mine = await w.person.openInOwnWindow(w.fixtures.url("/whoami?mine"));
  const before = await windows();
  const home = before.find((x) => x.tabs.some(([id]) => id === mine))!;
  const at = home.tabs.findIndex(([id]) => id === mine);
  const s = await w.startSession(["--name", "reloaded"]);
  const own = (await w.ok(["navigate", w.fixtures.url("/whoami?agent"), "--session", s])).tab_id as number;
  await w.ok(["tab", "borrow", String(mine), "--session", s]);
  // Lent, the tab shows the session's pill; the script that drew it is cut off by the reload.
  const pill = () => evalInPage(w.browser.cdpPort!, "/whoami?mine", `!!document.querySelector("bsk-overlay")`);
  await until("the lent tab's pill", pill);
  const agentWindow = (await windows()).find((x) => x.tabs.some(([id]) => id === own))!.id;
  expect((await windows()).find((x) => x.id === agentWindow)!.tabs.map(([id]) => id)).toContain(mine);

  // Beside the real copy: malformed entries, and a session of an earlier browser run whose ids exist no more.
  await chrome(`chrome.storage.local.get("sessions_left").then((g) => chrome.storage.local.set({ sessions_left: {
    ...g.sessions_left, junk: null, text: "x", number: 5, nameless: { window_id: 1, tabs: {} },
    earlier: { session_id: "earlier", window_id: 7, current_tab_id: 8, tabs: { 8: "created", 9: "borrowed" }, recent: [8],
      borrowed: { 9: { window_id: 7, index: 0, pinned: false, group_id: -1, muted: false } } } } })).then(() => true)`);
  const personTabs = (await windows()).filter((x) => x.id !== agentWindow).flatMap((x) => x.tabs.map(([id]) => id));
  await relinkedAfter(w, () => chrome("(chrome.runtime.reload(), true)").catch(() => undefined));

  const record = await ended(s);
  expect(record.end_reason).toBe("extension_reloaded");
  const events = (await w.ok(["events", "--session", s])).events.filter((e: any) => e.event === "session.ended");
  expect(events.at(-1).data).toMatchObject({ reason: "extension_reloaded", replaces: "not_adoptable" });
  await until("the Agent Window to close", async () => !(await windows()).some((x) => x.id === agentWindow));
  const after = await windows();
  expect(after.flatMap((x) => x.tabs.map(([id]) => id))).not.toContain(own);
  const back = after.find((x) => x.tabs.some(([id]) => id === mine))!;
  expect(back.id).toBe(home.id);
  expect(back.tabs.findIndex(([id]) => id === mine)).toBe(at);
  // Back with the person, it shows nothing of the session: the cut-off overlay took its pill down.
  await until("the stale pill to go", async () => !(await pill()));
  // The malformed and stale entries ended nothing and closed nothing of the person's.
  const nowOpen = (await windows()).flatMap((x) => x.tabs.map(([id]) => id));
  for (const id of personTabs) expect(nowOpen).toContain(id);
  expect((await w.ok(["session", "list"])).sessions.map((x: any) => x.session_id)).not.toContain("earlier");
  // Nothing of the session is left for a later instance to act on again.
  expect(await chrome(`chrome.storage.local.get("sessions_left").then((g) => Object.keys(g.sessions_left ?? {}))`)).toEqual([]);
}, 60_000);

test("a group session reloaded: its tabs close, the lent tab leaves the group, the person's window stays", async () => {
  await chrome(`chrome.storage.local.set({ confirm_borrow: false })`);
  const mine = await w.person.openInOwnWindow(w.fixtures.url("/whoami?grouped"));
  const home = (await windows()).find((x) => x.tabs.some(([id]) => id === mine))!.id;
  const r = await w.ok(["session", "start", "--no-focus", "--where", "group", "--name", "grouped"]);
  const s = r.session_id as string;
  await w.ok(["tab", "borrow", String(mine), "--session", s]);
  expect(await chrome(`chrome.tabs.get(${mine}).then((t) => t.groupId)`)).toBe(r.group_id);

  await relinkedAfter(w, () => chrome("(chrome.runtime.reload(), true)").catch(() => undefined));

  expect((await ended(s)).end_reason).toBe("extension_reloaded");
  await until("the group to go", async () => (await chrome(`chrome.tabGroups.get(${r.group_id}).then(() => false, () => true)`)) === true);
  const after = await windows();
  expect(after.flatMap((x) => x.tabs.map(([id]) => id))).not.toContain(r.tab_id);
  expect(after.find((x) => x.id === home)!.tabs.map(([id]) => id)).toContain(mine);
  expect(await chrome(`chrome.tabs.get(${mine}).then((t) => t.groupId)`)).toBe(-1);
}, 60_000);
