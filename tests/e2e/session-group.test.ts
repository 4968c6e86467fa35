/**
 * Group sessions (`session start --where group`): the session's tabs live in a named, coloured tab group in the
 * person's own window. In most tests the person's hands are chrome.tabs.group / ungroup called from an extension
 * page (the same browser events a drag in the tab strip makes: tabs.onUpdated with the new groupId), as
 * borrow.test.ts moves tabs; the last describe drags by real X input in a headed browser (tab-strip.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { serviceWorker, stopServiceWorker } from "./devtools.ts";
import { startWorld, until, useWorld, type Run, type World } from "./harness.ts";
import { canDrag, dragInStrip, findTab, FIRST_TAB_X, TAB_PITCH, type Strip } from "./tab-strip.ts";
import { startXvfb, type Display } from "./xvfb.ts";
import { PersonPage } from "./person-page.ts";

let w: World;
useWorld({}, (world) => (w = world));

afterEach(async () => {
  await w.bsk(["session", "stop", "--all"]);
});

const chrome = (expression: string) => w.person.asExtension(expression);
const run = (s: string, args: string[]) => w.bsk([...args, "--session", s, "--json"]);

async function fails(r: Run | Promise<Run>, code: string, reason?: string): Promise<any> {
  const got = await r;
  if (got.json?.ok !== false) throw new Error(`expected ${code}, got exit ${got.code}:\n${got.stdout}${got.stderr}`);
  expect(got.json.error.code).toBe(code);
  if (reason) expect(got.json.error.data?.reason).toBe(reason);
  return got.json.error;
}

async function tabState(tabId: number): Promise<{ windowId: number; index: number; groupId: number } | null> {
  return chrome(`chrome.tabs.get(${tabId}).then((t) => ({ windowId: t.windowId, index: t.index, groupId: t.groupId }), () => null)`);
}

/** The window the person works in: the one holding the connect page (their only window at the start). */
async function personWindow(): Promise<number> {
  return chrome(`chrome.tabs.query({ url: "chrome-extension://*/connect.html*" }).then((t) => t[0].windowId)`);
}

/** The person opens a page in a tab of their own window; its tab id. */
async function personTab(marker: string): Promise<number> {
  const tabId = await w.person.openInOwnWindow(w.fixtures.url(`/borrow-form.html?${marker}`));
  await w.person.waitForPage(marker);
  return tabId;
}

/** The person drags a tab into a group (or out of every group: null). */
async function drag(tabId: number, groupId: number | null): Promise<void> {
  await chrome(groupId === null ? `chrome.tabs.ungroup(${tabId})` : `chrome.tabs.group({ groupId: ${groupId}, tabIds: [${tabId}] })`);
}

async function events(s: string, type: string): Promise<any[]> {
  return (await w.ok(["events", "--session", s, "--type", type])).events;
}

let popups = 0;
/** What the popup (opened as a page of the person's) says under session `s` about a tab it refused. */
async function refusalNotice(world: World, s: string): Promise<string> {
  const marker = `popup.html?group-${++popups}`;
  await world.person.openTab(`chrome-extension://${EXTENSION_ID}/${marker}`);
  const page = await PersonPage.find(world.browser.cdpPort!, marker);
  try {
    const notice = JSON.stringify(`li[data-session="${s}"] [data-notice="lend_refused"]`);
    await page.waitFor(`document.querySelector(${notice}) !== null`);
    return await page.evaluate(`document.querySelector(${notice}).textContent`);
  } finally {
    page.close();
    await world.person.closePagesMatching(marker);
  }
}

const debugged = (tabId: number) => `chrome.debugger.getTargets().then((ts) => ts.some((t) => t.tabId === ${tabId} && t.attached))`;

/**
 * The person drags a tab into the group, which refuses it: the tab is back where it was, out of the group, and nothing
 * of it was read (the debugger never attached, the session lent nothing). The refusal event's data.
 */
async function dragRefused(s: string, group: number, tabId: number): Promise<any> {
  const before = (await tabState(tabId))!;
  await drag(tabId, group);
  const refused = await until("the refusal", async () => (await events(s, "tab.lend_refused")).find((e) => e.data.tab_id === tabId));
  expect(await tabState(tabId)).toEqual(before);
  expect(refused.data.back_to).toEqual({ window_id: before.windowId, index: before.index, group_id: before.groupId, fallback: false });
  expect(await chrome(debugged(tabId))).toBe(false);
  expect(await events(s, "tab.borrowed")).toEqual([]);
  return refused.data;
}

async function startGroup(extra: string[] = []): Promise<{ s: string; group: number; tab: number }> {
  const r = await w.ok(["session", "start", "--no-focus", "--where", "group", ...extra]);
  expect(typeof r.group_id).toBe("number");
  return { s: r.session_id, group: r.group_id, tab: r.tab_id };
}

describe("a session in a tab group of the person's window", () => {
  test("start, navigate, snapshot, click, a popup joining, take over and resume, stop returning a lent tab ungrouped", async () => {
    const home = await personWindow();
    const { s, group, tab } = await startGroup(["--name", "group life"]);
    const g = await chrome(`chrome.tabGroups.get(${group})`);
    expect(g).toMatchObject({ title: "bsk · group life", windowId: home });
    expect(await tabState(tab)).toMatchObject({ windowId: home, groupId: group });
    // The colour is the session's, the same each time: a second look gives the same.
    expect((await chrome(`chrome.tabGroups.get(${group})`)).color).toBe(g.color);

    const listed = (await w.ok(["session", "list", "--session", s])).sessions[0];
    expect(listed).toMatchObject({ where: "group", group_id: group, window_id: home });
    expect((await w.bsk(["session", "list", "--session", s])).stdout).toContain(`tab group ${group} in window ${home}`);

    await w.ok(["navigate", w.fixtures.url("/popup-opener.html?group"), "--session", s]);
    const snap = await w.ok(["snapshot", "--session", s]);
    const link = (snap.text as string)
      .split("\n")
      .find((l) => l.includes("Open in new tab"))
      ?.match(/@e\d+/)?.[0];
    expect(link).toBeDefined();
    const clicked = await w.ok(["click", link!, "--session", s]);
    const popup: number = clicked.effect?.new_tab_id ?? clicked.new_tab_id;
    const opened = await until("the new tab to join the session and its group", async () => {
      const tabs = (await w.ok(["tab", "list", "--session", s])).tabs;
      const t = tabs.find((x: any) => x.ownership === "opened");
      return t?.group?.id === group && t;
    });
    if (popup !== undefined) expect(opened.tab_id).toBe(popup);
    expect((await tabState(opened.tab_id))?.groupId).toBe(group);
    expect((await w.bsk(["tab", "list", "--session", s])).stdout).toContain(`group "bsk · group life"`);

    // Take over and Resume in the pill of the group's tab, as in an Agent Window.
    const page = await PersonPage.find(w.browser.cdpPort!, "popup-opener.html?group");
    await page.waitOverlay("the pill", (o) => !!o?.pill);
    await page.clickOverlay("takeover");
    await until("taken over", async () => (await w.ok(["session", "list", "--session", s])).sessions[0].state === "taken_over");
    await fails(run(s, ["snapshot"]), "user_aborted", "taken_over");
    await page.waitOverlay("Resume offered", (o) => !!o?.buttons.includes("resume"));
    await page.clickOverlay("resume");
    await until("live again", async () => (await w.ok(["session", "list", "--session", s])).sessions[0].state === "live");
    page.close();

    // A lent tab (by the command, confirmation off) joins the group and goes back ungrouped where it was.
    await chrome(`chrome.storage.local.set({ confirm_borrow: false })`);
    try {
      const mine = await personTab("lent-by-command");
      const before = await tabState(mine);
      await w.ok(["tab", "borrow", String(mine), "--session", s]);
      expect((await tabState(mine))?.groupId).toBe(group);
      const stopped = await w.ok(["session", "stop", s]);
      expect(stopped.returned_tab_ids).toEqual([mine]);
      expect(stopped.closed_tab_ids.sort()).toEqual([tab, opened.tab_id].sort());
      // Back where it was, ungrouped: the group's two tabs to its left closed after it was put back.
      expect(await tabState(mine)).toEqual({ ...before!, index: before!.index - 2, groupId: -1 });
      expect(await chrome(`chrome.tabGroups.get(${group}).then(() => "there", () => "gone")`)).toBe("gone");
      await chrome(`chrome.tabs.remove(${mine})`);
    } finally {
      await chrome(`chrome.storage.local.set({ confirm_borrow: true })`);
    }
  }, 60_000);

  test("a tab the person drags in is lent without a prompt; dragged out, it is theirs again at once", async () => {
    const { s, group } = await startGroup();
    const mine = await personTab("drag-in");
    await drag(mine, group);
    const lent = await until("the lend event", async () => (await events(s, "tab.borrowed")).find((e) => e.data.tab_id === mine));
    expect(lent.data).toMatchObject({ lent_by_drag: true, asked: false });
    const t = (await w.ok(["tab", "list", "--session", s])).tabs.find((x: any) => x.tab_id === mine);
    expect(t).toMatchObject({ owner: "session", ownership: "borrowed", group: { id: group } });

    // A call waiting on the tab ends user_aborted the moment the person drags it out.
    await w.ok(["tab", "select", String(mine), "--session", s]);
    const waiting = run(s, ["wait-for", "--text", "never on this page", "--timeout", "20s", "--tab", String(mine)]);
    const page = await PersonPage.find(w.browser.cdpPort!, "borrow-form.html?drag-in");
    await page.waitOverlay("the glow while the wait-for runs", (o) => !!o?.glow);
    await drag(mine, null);
    const cut = await fails(waiting, "user_aborted", "taken_back");
    expect(cut.data.tab_id).toBe(mine);
    await fails(run(s, ["snapshot", "--tab", String(mine)]), "permission_denied");
    expect((await events(s, "tab.taken_back")).map((e) => e.data)).toEqual([{ tab_id: mine, reason: "dragged_out" }]);
    expect((await tabState(mine))?.groupId).toBe(-1);
    page.close();
    await chrome(`chrome.tabs.remove(${mine})`);
  }, 60_000);

  test("a borrow asks the person as for an Agent Window; request-help shows its panel in the group's tab", async () => {
    const { s, group } = await startGroup(["--name", "ask first"]);
    const mine = await personTab("consent");
    const pending = run(s, ["tab", "borrow", String(mine)]);
    const shown = await w.person.answerConsent(true);
    expect(shown.session).toContain("ask first");
    expect((await pending).json.result).toMatchObject({ tab_id: mine, asked: true });
    expect((await tabState(mine))?.groupId).toBe(group);

    await w.ok(["navigate", w.fixtures.url("/overlay.html?group-help"), "--session", s]);
    const page = await PersonPage.find(w.browser.cdpPort!, "overlay.html?group-help");
    const asking = run(s, ["request-help", "--prompt", "Check the Probe button", "--timeout", "20s"]);
    await page.waitOverlay("the help panel", (o) => !!o?.panel);
    await page.typeNote("done here");
    await page.clickOverlay("done");
    expect((await asking).json.result).toMatchObject({ outcome: "continued", note: "done here" });
    page.close();
    const stopped = await w.ok(["session", "stop", s]);
    expect(stopped.returned_tab_ids).toEqual([mine]);
    expect((await tabState(mine))?.groupId).toBe(-1);
    await chrome(`chrome.tabs.remove(${mine})`);
  }, 60_000);

  test("closing the group (its last tab) ends the session", async () => {
    const { s, tab } = await startGroup();
    await chrome(`chrome.tabs.remove(${tab})`);
    const ended = await until("the session to end", async () => {
      const rec = (await w.ok(["session", "list", "--session", s])).sessions[0];
      return rec.state === "ended" && rec;
    });
    expect(ended.end_reason).toBe("group_closed");
  });
});

describe("a restarted service worker", () => {
  test("keeps the group: new tabs join it, a drag in is still a lend, closing the group still ends the session", async () => {
    const { s, group, tab } = await startGroup();
    // A page of the session's (not about:blank) runs the keep-alive script, whose ping wakes the stopped worker.
    await w.ok(["navigate", w.fixtures.url("/borrow-form.html?keepalive"), "--session", s]);
    const old = await stopServiceWorker(w.person);
    await until("the worker to come back", async () => {
      const sw = await serviceWorker(w.person);
      return sw && sw.targetId !== old;
    });
    const created = await w.ok(["tab", "create", w.fixtures.url("/borrow-form.html?after-restart"), "--session", s]);
    expect(created.group).toEqual({ id: group, title: `bsk · ${s}` });
    const mine = await personTab("restart-drag");
    await drag(mine, group);
    await until("the lend event", async () => (await events(s, "tab.borrowed")).find((e) => e.data.tab_id === mine));
    await chrome(`chrome.tabs.remove([${tab}, ${created.tab_id}, ${mine}])`);
    const ended = await until("the session to end", async () => {
      const rec = (await w.ok(["session", "list", "--session", s])).sessions[0];
      return rec.state === "ended" && rec;
    });
    expect(ended.end_reason).toBe("group_closed");
  }, 60_000);
});

describe("the group's last tab", () => {
  test("dragged out by the person, it stays open as theirs; the session ends with its group", async () => {
    const { s, tab } = await startGroup();
    await w.ok(["navigate", w.fixtures.url("/borrow-form.html?last-out"), "--session", s]);
    await drag(tab, null);
    const ended = await until("the session to end", async () => {
      const rec = (await w.ok(["session", "list", "--session", s])).sessions[0];
      return rec.state === "ended" && rec;
    });
    expect(ended.end_reason).toBe("group_closed");
    expect((await events(s, "tab.taken_back")).map((e) => e.data)).toEqual([{ tab_id: tab, reason: "dragged_out" }]);
    // Ending the session closes the session's own tabs; this one had become the person's and is left alone. (Chromium
    // moves the tab out before it deletes the emptied group, so the take-back is done when the group's end comes.)
    expect(await tabState(tab)).toMatchObject({ groupId: -1 });
    expect(await chrome(`chrome.tabs.get(${tab}).then((t) => t.url)`)).toContain("last-out");
    await until("the debugger to leave the tab", async () => (await chrome(debugged(tab))) === false);
    await chrome(`chrome.tabs.remove(${tab})`);
  });
});

describe("attacks", () => {
  test("--no-borrow: a tab dragged into the group is put back where it was, unread, and the person told; tab borrow is refused", async () => {
    const mine = await personTab("no-borrow");
    const other = await personTab("no-borrow-other");
    const { s, group } = await startGroup(["--no-borrow"]);
    // [connect page] [mine] [other] [the group]: joining the group moves it past the other tab.
    expect(await dragRefused(s, group, mine)).toMatchObject({ tab_id: mine, reason: "no_borrow", put_back: true });
    await fails(run(s, ["snapshot", "--tab", String(mine)]), "permission_denied");
    const told = await refusalNotice(w, s);
    expect(told).toContain("--no-borrow");
    expect(told).toContain("It is back where it was.");
    const err = await fails(run(s, ["tab", "borrow", String(mine)]), "permission_denied", "borrow_denied");
    expect(err.data.detail).toBe("no_borrow");
    await chrome(`chrome.tabs.remove([${mine}, ${other}])`);
  });

  test("a browser page dragged into the group is put back where it was, unread, and the person told why", async () => {
    const page = await w.person.openInOwnWindow("chrome://version/");
    const other = await personTab("browser-page-other");
    const { s, group } = await startGroup();
    expect(await dragRefused(s, group, page)).toMatchObject({ tab_id: page, reason: "restricted_url", put_back: true });
    expect(await refusalNotice(w, s)).toContain("it shows a browser page");
    await chrome(`chrome.tabs.remove([${page}, ${other}])`);
  });

  test("a tab dragged in from a group of the person's goes back into that group, where it was", async () => {
    const mine = await personTab("from-group");
    const sibling = await personTab("from-group-sibling");
    const other = await personTab("from-group-other");
    const theirs: number = await chrome(`chrome.tabs.group({ tabIds: [${mine}, ${sibling}] })`);
    const { s, group } = await startGroup(["--no-borrow"]);
    const before = await tabState(mine);
    expect(before?.groupId).toBe(theirs);
    expect(await dragRefused(s, group, mine)).toMatchObject({ tab_id: mine, reason: "no_borrow", put_back: true });
    await chrome(`chrome.tabs.remove([${mine}, ${sibling}, ${other}])`);
  });

  test("a group with the session's title made by someone else is not the session's", async () => {
    const { s, group } = await startGroup(["--name", "look alike"]);
    const color = (await chrome(`chrome.tabGroups.get(${group})`)).color;
    const mine = await personTab("look-alike");
    const other = await personTab("look-alike-2");
    const fake: number = await chrome(`chrome.tabs.group({ tabIds: [${mine}] })`);
    await chrome(`chrome.tabGroups.update(${fake}, { title: "bsk · look alike", color: ${JSON.stringify(color)} })`);
    await drag(other, fake);
    // A probe the session does see (a tab of its own) orders the events: everything before it has been handled.
    await w.ok(["tab", "create", w.fixtures.url("/borrow-form.html?probe"), "--session", s]);
    const tabs = (await w.ok(["tab", "list", "--session", s, "--scope", "all"])).tabs;
    for (const id of [mine, other]) expect(tabs.find((t: any) => t.tab_id === id)).toMatchObject({ owner: "person" });
    expect(await events(s, "tab.borrowed")).toEqual([]);
    await w.ok(["session", "stop", s]);
    expect((await tabState(mine))?.groupId).toBe(fake);
    await chrome(`chrome.tabs.remove([${mine}, ${other}])`);
  });

  test("the window is the person's: no size at start, no window resize", async () => {
    const sized = await w.bsk(["session", "start", "--where", "group", "--width", "800", "--json"]);
    await fails(sized, "invalid_params");
    expect(sized.json.error.message).toContain("person's own window");
    const home = await personWindow();
    const before = await chrome(`chrome.windows.get(${home}).then((w) => [w.width, w.height])`);
    const { s } = await startGroup();
    await fails(run(s, ["window", "resize", "--width", "640", "--height", "480"]), "permission_denied", "group_session");
    expect(await chrome(`chrome.windows.get(${home}).then((w) => [w.width, w.height])`)).toEqual(before);
  });

  test("a page of the agent's cannot move a tab into the group: it has no tabs API", async () => {
    const { s } = await startGroup();
    await w.ok(["navigate", w.fixtures.url("/borrow-form.html?agent"), "--session", s]);
    const r = await w.ok(["evaluate", "typeof chrome === 'undefined' || typeof chrome.tabs", "--session", s]);
    expect([true, "undefined"]).toContain(r.value);
  });
});

// Real X input in the headed tab strip (tab-strip.ts), whenever Xvfb and xdotool exist. A press while the strip
// animates (after a group header click, a drop, a tab move) starts no drag in Chromium, and a click then hits where a
// tab is passing: tab-strip.ts presses and clicks only when the browser shows the strip standing still.
if (!canDrag()) {
  console.warn("session-group: Xvfb or xdotool is not installed (apt-get install xvfb xdotool): the real tab-strip drag is skipped");
}
describe.skipIf(!canDrag())("by real input: the person drags tabs in the tab strip (Xvfb, xdotool)", () => {
  let x: Display;
  let h: World;
  beforeAll(async () => {
    x = (await startXvfb())!;
    h = await startWorld({ display: x.display });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await x?.stop();
  });

  /** The person's hands, their window (placed where tab-strip.ts expects it) and its tab strip. */
  async function personStrip(): Promise<{ hands: (e: string) => Promise<any>; home: { id: number; windowId: number }; strip: Strip }> {
    const hands = (e: string) => h.person.asExtension(e);
    const home: { id: number; windowId: number } = await hands(
      `chrome.tabs.query({ url: "chrome-extension://*/connect.html*" }).then((t) => ({ id: t[0].id, windowId: t[0].windowId }))`,
    );
    await hands(`chrome.windows.update(${home.windowId}, { left: 0, top: 0, width: 1200, height: 800, focused: true })`);
    return { hands, home, strip: { chrome: hands, display: x.display, windowId: home.windowId, homeTab: home.id } };
  }

  test("drag a tab into the group: lent; drag it out: a running call ends user_aborted and the tab is the person's", async () => {
    const { hands, home, strip } = await personStrip();
    // The strip: [connect page] [the person's tab] [group header] [the agent's tab].
    const mine = await h.person.openInOwnWindow(h.fixtures.url("/borrow-form.html?real-drag"));
    const r = await h.ok(["session", "start", "--where", "group", "--name", "drag"]);
    expect(r.window_id).toBe(home.windowId);
    const mineX = await findTab(strip, mine, FIRST_TAB_X + TAB_PITCH + 10);
    const agentX = await findTab(strip, r.tab_id, mineX + TAB_PITCH - 3);

    // Across the group and dropped beyond it: it slid through the group on the way, which lends nothing.
    await dragInStrip(strip, mine, mineX + 60, agentX + 200);
    await until("the tab dropped at the end", async () => {
      const t = await hands(`chrome.tabs.get(${mine})`);
      return t.index === 2 && t.groupId === -1;
    });
    // Now [connect page] [group header] [the agent's tab] [the person's tab].
    const agentX2 = await findTab(strip, r.tab_id, FIRST_TAB_X + TAB_PITCH + 10);
    const mineX2 = await findTab(strip, mine, agentX2 + TAB_PITCH - 3);
    // Dropped on the left half of the agent's tab: it lands in the group, before that tab.
    await dragInStrip(strip, mine, mineX2 + 60, agentX2 + 30);
    const lent = await until("the lend by drag", async () =>
      (await h.ok(["events", "--session", r.session_id, "--type", "tab.borrowed"])).events.find((e: any) => e.data.tab_id === mine),
    );
    expect(lent.data).toMatchObject({ lent_by_drag: true, asked: false });
    expect((await hands(`chrome.tabs.get(${mine})`)).groupId).toBe(r.group_id);
    // The drag across lent nothing: this lend is the first thing the session heard of the tab.
    const kinds = (await h.ok(["events", "--session", r.session_id, "--type", "tab"])).events.map((e: any) => e.event);
    expect(kinds).toEqual(["tab.borrowed"]);

    const waiting = h.bsk([
      "wait-for",
      "--text",
      "never on this page",
      "--timeout",
      "20s",
      "--tab",
      String(mine),
      "--session",
      r.session_id,
      "--json",
    ]);
    const page = await PersonPage.find(h.browser.cdpPort!, "borrow-form.html?real-drag");
    await page.waitOverlay("the glow while the wait-for runs", (o) => !!o?.glow);
    // Now [connect page] [group header] [the group's two tabs, in the order the drop gave them].
    const order: number[] = await hands(`chrome.tabs.query({ groupId: ${r.group_id} }).then((ts) => ts.map((t) => t.id))`);
    let from = FIRST_TAB_X + TAB_PITCH + 10;
    if (order[0] !== mine) from = (await findTab(strip, order[0]!, from)) + TAB_PITCH - 3;
    const nowX = await findTab(strip, mine, from);
    await dragInStrip(strip, mine, nowX + 60, FIRST_TAB_X + 40);
    const got = await waiting;
    expect(got.json?.error?.code).toBe("user_aborted");
    expect(got.json.error.data).toMatchObject({ reason: "taken_back", tab_id: mine });
    expect((await hands(`chrome.tabs.get(${mine})`)).groupId).toBe(-1);
    const back = (await h.ok(["events", "--session", r.session_id, "--type", "tab.taken_back"])).events;
    expect(back.map((e: any) => e.data)).toEqual([{ tab_id: mine, reason: "dragged_out" }]);
    page.close();
    await h.ok(["session", "stop", r.session_id]);
    // The next test finds tabs by clicking along the strip: none of this one's may be left in the way.
    await hands(`chrome.tabs.remove(${mine})`);
  }, 90_000);

  test("a linked tab dragged into the group is refused and put back where it was, out of the group; the person is told", async () => {
    const { hands, home, strip } = await personStrip();
    // The person's page A opens K (a click of theirs): their pages can reach each other, so K is never lent.
    const opener = await h.person.openInOwnWindow(h.fixtures.url("/borrow-linked.html?drag-opener"));
    const a = await h.person.waitForPage("drag-opener");
    await h.person.evaluateIn(a.targetId, `void window.open(${JSON.stringify(h.fixtures.url("/borrow-linked.html?drag-linked"))}, "k")`, {
      userGesture: true,
    });
    await h.person.waitForPage("drag-linked");
    const linked: number = await until("the opened tab", () =>
      hands(`chrome.tabs.query({}).then((ts) => ts.find((t) => (t.url || t.pendingUrl || "").includes("drag-linked"))?.id)`),
    );
    const r = await h.ok(["session", "start", "--where", "group", "--name", "linked"]);
    // The strip: [connect page] [K] [A] [group header] [the agent's tab] (A opened K next to the active tab).
    const before = await hands(`chrome.tabs.get(${linked}).then((t) => ({ windowId: t.windowId, index: t.index, groupId: t.groupId }))`);
    expect(before).toEqual({ windowId: home.windowId, index: 1, groupId: -1 });
    const linkedX = await findTab(strip, linked, FIRST_TAB_X + TAB_PITCH + 10);
    const openerX = await findTab(strip, opener, linkedX + TAB_PITCH - 3);
    const agentX = await findTab(strip, r.tab_id, openerX + TAB_PITCH - 3);
    // Dropped on the left half of the agent's tab: it lands in the group, which refuses it.
    await dragInStrip(strip, linked, linkedX + 60, agentX + 30);
    const refused = await until("the refusal", async () =>
      (await h.ok(["events", "--session", r.session_id, "--type", "tab.lend_refused"])).events.find((e: any) => e.data.tab_id === linked),
    );
    expect(await hands(`chrome.tabs.get(${linked}).then((t) => ({ windowId: t.windowId, index: t.index, groupId: t.groupId }))`)).toEqual(
      before,
    );
    expect(refused.data).toEqual({
      tab_id: linked,
      reason: "linked_tabs",
      put_back: true,
      back_to: { window_id: home.windowId, index: 1, group_id: -1, fallback: false },
    });
    // Nothing of it was read or lent.
    expect(await hands(debugged(linked))).toBe(false);
    expect((await h.ok(["events", "--session", r.session_id, "--type", "tab.borrowed"])).events).toEqual([]);
    expect(await refusalNotice(h, r.session_id)).toContain("it is linked to another tab of yours");
    await h.ok(["session", "stop", r.session_id]);
    await hands(`chrome.tabs.remove([${opener}, ${linked}])`);
  }, 90_000);
});
