/**
 * Lending is by browsing context group: a tab linked to another of the person's (one opened the other, so their
 * pages can reach each other through window.opener or a named-window lookup) is never lent, in either direction,
 * same-origin or cross-origin, also once the opener closed (its children still find each other by name). Each
 * test first shows the link is real (the attack a lent tab's script would make), then that the borrow is refused
 * before any consent window, the tab did not move and nothing was clicked.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { until, useWorld, type Run, type World } from "./harness.ts";

let w: World;

useWorld({}, (world) => (w = world));

afterEach(async () => {
  await chrome(`chrome.storage.local.set({ confirm_borrow: true })`);
  await w.bsk(["session", "stop", "--all"]);
  await w.person.closePagesMatching("/borrow-linked.html");
});

const chrome = (expression: string) => w.person.asExtension(expression);

let n = 0;
/** A page of the person's in their own window: its tab id, DevTools target and marker. */
async function personPage(): Promise<{ tabId: number; targetId: string; marker: string }> {
  const marker = `linked-${++n}`;
  const tabId: number = await w.person.openInOwnWindow(w.fixtures.url(`/borrow-linked.html?${marker}`));
  const { targetId } = await w.person.waitForPage(marker);
  return { tabId, targetId, marker };
}

/** The person's page `opener` opens `url` in a named window (a click of theirs: a user gesture). */
async function openNamed(opener: string, name: string, crossSite: boolean): Promise<{ tabId: number; targetId: string }> {
  const marker = `linked-${++n}`;
  const path = `/borrow-linked.html?${marker}`;
  const url = crossSite ? w.fixtures.crossUrl(path) : w.fixtures.url(path);
  await w.person.evaluateIn(opener, `void window.open(${JSON.stringify(url)}, ${JSON.stringify(name)})`, { userGesture: true });
  const { targetId } = await w.person.waitForPage(marker);
  const tabId: number = await until("the opened tab", () =>
    chrome(`chrome.tabs.query({}).then((ts) => ts.find((t) => (t.url || t.pendingUrl || "").includes(${JSON.stringify(marker)}))?.id)`),
  );
  await w.person.evaluateIn(targetId, `new Promise((r) => document.readyState === "complete" ? r() : addEventListener("load", () => r()))`);
  return { tabId, targetId };
}

const windowOf = (tabId: number): Promise<number> => chrome(`chrome.tabs.get(${tabId}).then((t) => t.windowId)`);
const clicksIn = (targetId: string): Promise<number> => w.person.evaluateIn(targetId, "window.clicks");
const consentPages = async () => (await w.person.pages()).filter((p) => p.url.includes(`${EXTENSION_ID}/consent.html`)).length;

function refusedAsLinked(r: Run): void {
  if (r.json?.ok !== false) throw new Error(`expected a refusal, got exit ${r.code}:\n${r.stdout}\n${r.stderr}`);
  expect(r.json.error.code).toBe("permission_denied");
  expect(r.json.error.data.reason).toBe("linked_tabs");
  expect(r.json.error.hint).toContain("new tab");
}

async function refusedUntouched(s: string, lend: number, others: { tabId: number; targetId: string }[]): Promise<void> {
  const before = await windowOf(lend);
  const r = await w.bsk(["tab", "borrow", String(lend), "--session", s, "--json"]);
  refusedAsLinked(r);
  expect(await consentPages()).toBe(0);
  expect(await windowOf(lend)).toBe(before);
  for (const o of others) expect(await clicksIn(o.targetId)).toBe(0);
  // Nothing of the person's is the session's: the agent cannot even read the tabs.
  const read = await w.bsk(["evaluate", "document.title", "--session", s, "--tab", String(lend), "--json"]);
  expect(read.json.error.data.reason).toBe("agent_window_scope");
}

describe("linked tabs are never lent", () => {
  for (const crossSite of [false, true]) {
    const where = crossSite ? "cross-origin" : "same-origin";

    test(`a tab the person's page opened (${where}): neither it nor its opener`, async () => {
      const s = await w.startSession();
      const a = await personPage();
      const name = `k${n}`;
      const k = await openNamed(a.targetId, name, crossSite);
      // The attack a lent K would run: reach A through window.opener (read it when same-origin, steer it always).
      expect(await w.person.evaluateIn(k.targetId, "window.opener !== null")).toBe(true);
      if (!crossSite)
        expect(await w.person.evaluateIn(k.targetId, "window.opener.document.getElementById('secret').textContent")).toBe("account 4242");
      await refusedUntouched(s, k.tabId, [a]);
      // The other direction: A reaches K by name.
      const found = `(() => { const k = window.open("", ${JSON.stringify(name)}); return k !== null && k !== window && k.opener === window; })()`;
      expect(await w.person.evaluateIn(a.targetId, found, { userGesture: true })).toBe(true);
      await refusedUntouched(s, a.tabId, [k]);
    });
  }

  test("tabs one page opened stay linked by name after that page closed", async () => {
    const s = await w.startSession();
    const a = await personPage();
    const k1 = await openNamed(a.targetId, "first", false);
    const k2 = await openNamed(a.targetId, "second", true);
    await chrome(`chrome.tabs.remove(${a.tabId})`);
    // K1's script finds K2 by its window name although their opener is gone.
    expect(
      await w.person.evaluateIn(
        k1.targetId,
        `(() => { const other = window.open("", "second"); return other !== null && other !== window; })()`,
        { userGesture: true },
      ),
    ).toBe(true);
    await refusedUntouched(s, k1.tabId, [k2]);
    await refusedUntouched(s, k2.tabId, [k1]);
  });

  test("once the tab it is linked to is closed, the tab can be lent", async () => {
    const s = await w.startSession();
    const a = await personPage();
    const k = await openNamed(a.targetId, `k${n}`, false);
    refusedAsLinked(await w.bsk(["tab", "borrow", String(k.tabId), "--session", s, "--json"]));
    await chrome(`chrome.tabs.remove(${a.tabId})`);
    await chrome(`chrome.storage.local.set({ confirm_borrow: false })`);
    const lent = await w.ok(["tab", "borrow", String(k.tabId), "--session", s]);
    expect(lent.tab_id).toBe(k.tabId);
  });

  test("a tab the lent page opened is closed before the lent tab goes back", async () => {
    const s = await w.startSession();
    const l = await personPage();
    await chrome(`chrome.storage.local.set({ confirm_borrow: false })`);
    await w.ok(["tab", "borrow", String(l.tabId), "--session", s]);
    // The agent's script in the lent tab opens a window: the session's, and its page can reach the lent one.
    await w.ok(["evaluate", `void window.open(location.href.replace("${l.marker}", "popup-${l.marker}"), "pp")`, "--session", s]);
    const popup: number = await until("the popup to be the session's", async () => {
      const tabs = (await w.ok(["tab", "list", "--session", s])).tabs as { tab_id: number; url: string }[];
      return tabs.find((t) => t.url.includes(`popup-${l.marker}`))?.tab_id;
    });
    const back = await w.ok(["tab", "return", String(l.tabId), "--session", s]);
    expect(back.closed_tab_ids).toEqual([popup]);
    expect(await chrome(`chrome.tabs.get(${popup}).then(() => "open", () => "gone")`)).toBe("gone");
  });
});
