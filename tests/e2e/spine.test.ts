/** The spine end to end: real Chromium, the built extension, dist/bsk, a local fixture site. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { startWorld, until, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

let w: World;

beforeAll(async () => {
  // The person logs in to the fixture site in an ordinary tab before any session exists.
  w = await startWorld({ browserUrls: (f) => [f.url("/login?user=ada")] });
  await w.fixtures.seen("/account");
}, 60_000);

afterAll(async () => {
  await w?.stop();
});

describe("session, navigation, evaluate, tabs", () => {
  test("a session opens an Agent Window, navigates, evaluates, manages tabs and closes its window on stop", async () => {
    const s = await w.startSession();
    expect(s).toMatch(/^[a-z0-9]{4}$/);

    const nav = await w.ok(["navigate", w.fixtures.url("/shop.html"), "--session", s]);
    expect(nav).toMatchObject({ url: w.fixtures.url("/shop.html"), title: "Tiny Shop", status: 200, navigated: true });

    const title = await w.bsk(["evaluate", "document.title", "--session", s]);
    expect(title.code).toBe(0);
    expect(title.stdout.trim()).toBe("Tiny Shop");

    const first = (await w.ok(["tab", "list", "--session", s])).tabs;
    expect(first).toHaveLength(1);
    const windowId = first[0].window_id;

    const created = await w.ok(["tab", "create", w.fixtures.url("/echo-title/Second"), "--session", s]);
    expect(created.window_id).toBe(windowId);
    const list = await w.ok(["tab", "list", "--session", s]);
    expect(list.tabs.map((t: any) => t.tab_id).sort()).toEqual([first[0].tab_id, created.tab_id].sort());
    expect(list.current_tab_id).toBe(created.tab_id);

    await w.ok(["tab", "select", String(first[0].tab_id), "--session", s]);
    expect((await w.ok(["evaluate", "document.title", "--session", s])).value).toBe("Tiny Shop");
    expect((await w.ok(["evaluate", "document.title", "--session", s, "--tab", String(created.tab_id)])).value).toBe("Second");

    await w.ok(["tab", "close", String(created.tab_id), "--session", s]);
    expect((await w.ok(["tab", "list", "--session", s])).tabs).toHaveLength(1);

    const stopped = await w.ok(["session", "stop", s]);
    expect(stopped.stopped).toEqual([s]);
    const windows = await w.person.pages();
    expect(windows.some((p) => p.url.includes("/shop.html"))).toBe(false);
    const after = await w.bsk(["tab", "list", "--session", s, "--json"]);
    expect(after.code).toBe(1);
    expect(after.json.error.code).toBe("not_found");
  });

  test("navigation reports status, waits, history and reload", async () => {
    const s = await w.startSession();
    const missing = await w.ok(["navigate", w.fixtures.url("/status/404"), "--session", s]);
    expect(missing.status).toBe(404);
    await w.ok(["navigate", w.fixtures.url("/echo-title/One"), "--session", s, "--wait-until", "domcontentloaded"]);
    await w.ok(["navigate", w.fixtures.url("/echo-title/Two"), "--session", s, "--wait-until", "networkidle"]);
    const back = await w.ok(["navigate", "back", "--session", s]);
    expect(back).toMatchObject({ title: "One", navigated: true });
    const fwd = await w.ok(["navigate", "forward", "--session", s]);
    expect(fwd.title).toBe("Two");
    const reloaded = await w.ok(["reload", "--hard", "--session", s]);
    expect(reloaded.title).toBe("Two");

    const waited = await w.ok(["wait-for", "--url", "*/echo-title/Two", "--session", s, "--timeout", "5s"]);
    expect(waited.matched).toBe("url");

    // wait-for --navigation resolves on a navigation that starts later: the person's, once the call is seen running
    // (the tab glows while the agent acts).
    const waiting = w.ok(["wait-for", "--navigation", "--session", s, "--timeout", "10s"]);
    const person = await PersonPage.find(w.browser.cdpPort!, "/echo-title/Two");
    await person.waitOverlay("the glow while the wait-for runs", (o) => !!o?.glow);
    await person.navigateBy(`location.href = ${JSON.stringify(w.fixtures.url("/echo-title/Three"))}`);
    expect(await waiting).toMatchObject({ matched: "navigation", title: "Three" });
    person.close();

    const timedOut = await w.bsk(["wait-for", "--url", "/never-matches/", "--session", s, "--timeout", "300ms", "--json"]);
    expect(timedOut.code).toBe(4);
    expect(timedOut.json.error.code).toBe("timeout");
    await w.ok(["session", "stop", s]);
  });

  test("evaluate returns values and reports a thrown error as evaluation_failed", async () => {
    const s = await w.startSession();
    expect((await w.ok(["evaluate", "1+1", "--session", s])).value).toBe(2);
    expect((await w.ok(["evaluate", "Promise.resolve({a: [1, 'x']})", "--session", s])).value).toEqual({ a: [1, "x"] });
    const thrown = await w.bsk(["evaluate", "throw new Error('boom')", "--session", s]);
    expect(thrown.code).toBe(1);
    expect(thrown.stderr).toContain("error:");
    expect(thrown.stderr).toContain("boom");
    expect(thrown.stderr).toContain("hint:");
    await w.ok(["session", "stop", s]);
  });

  test("restricted URLs are refused", async () => {
    const s = await w.startSession();
    const r = await w.bsk(["navigate", "chrome://settings", "--session", s, "--json"]);
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({ code: "permission_denied", data: { reason: "restricted_url" } });
    await w.ok(["session", "stop", s]);
  });
});

describe("the person's browser stays theirs", () => {
  test("an Agent Window reuses the person's login", async () => {
    const s = await w.startSession();
    await w.ok(["navigate", w.fixtures.url("/account"), "--session", s]);
    expect((await w.ok(["evaluate", "document.querySelector('h1').textContent", "--session", s])).value).toBe("Logged in as ada");
    await w.ok(["session", "stop", s]);
  });

  test("a session cannot touch the person's tab nor another session's tab", async () => {
    const a = await w.startSession();
    const b = await w.startSession();
    const people = (await w.ok(["tab", "list", "--scope", "user", "--session", a])).tabs;
    const account = people.find((t: any) => t.url.includes("/account"));
    expect(account).toBeDefined();
    expect(account.owner).toBe("person");

    const onPerson = await w.bsk(["evaluate", "document.cookie", "--session", a, "--tab", String(account.tab_id), "--json"]);
    expect(onPerson.code).toBe(1);
    expect(onPerson.json.error).toMatchObject({ code: "permission_denied", data: { reason: "agent_window_scope" } });

    const bTab = (await w.ok(["tab", "list", "--session", b])).tabs[0].tab_id;
    for (const args of [
      ["evaluate", "1", "--tab", String(bTab)],
      ["navigate", w.fixtures.url("/"), "--tab", String(bTab)],
      ["tab", "close", String(bTab)],
      ["tab", "select", String(bTab)],
    ]) {
      const r = await w.bsk([...args, "--session", a, "--json"]);
      expect(r.code).toBe(1);
      expect(r.json.error.code).toBe("permission_denied");
    }
    const all = (await w.ok(["tab", "list", "--scope", "all", "--session", a])).tabs;
    expect(all.find((t: any) => t.tab_id === bTab)?.owner).toBe("other_session");
    await w.ok(["session", "stop", "--all"]);
  });

  test("a popup opened by an agent tab belongs to the session", async () => {
    const s = await w.startSession();
    await w.ok(["navigate", w.fixtures.url("/popup-opener.html"), "--session", s]);
    await w.ok(["evaluate", "document.getElementById('open').click()", "--session", s]);
    const popup = await until("the popup to join the session", async () => {
      const tabs = (await w.ok(["tab", "list", "--session", s])).tabs;
      return tabs.find((t: any) => t.ownership === "opened" && t.url.includes("Popup"));
    });
    const title = await w.ok(["evaluate", "document.title", "--session", s, "--tab", String(popup.tab_id)]);
    expect(title.value).toBe("Popup child");
    await w.ok(["session", "stop", s]);
    expect((await w.person.pages()).some((p) => p.url.includes("Popup"))).toBe(false);
  });

  test("closing the Agent Window by hand ends the session with a recorded reason", async () => {
    const s = await w.startSession();
    await w.ok(["navigate", w.fixtures.url(`/echo-title/close-me-${s}`), "--session", s]);
    expect(await w.person.closePagesMatching(`close-me-${s}`)).toBe(1);
    const ended = await until("the session to end", async () => {
      const list = (await w.ok(["session", "list"])).sessions;
      return list.find((x: any) => x.session_id === s && x.state === "ended");
    });
    expect(ended.end_reason).toBe("window_closed");
    const r = await w.bsk(["evaluate", "1", "--session", s, "--json"]);
    expect(r.json.error.code).toBe("not_found");
  });
});

describe("session start URL: one call to a session on its page", () => {
  const windowCount = async () => (await w.person.asExtension("chrome.windows.getAll().then((ws) => ws.length)")) as number;
  const sessionCount = async () => (await w.ok(["session", "list"])).sessions.length as number;

  test("the window opens on the page: navigate's result, its op in the ledger, the id alone on stdout", async () => {
    const url = w.fixtures.url("/shop.html");
    const r = await w.bsk(["session", "start", url, "--no-focus", "--json"]);
    expect(r.code).toBe(0);
    const started = r.json.result;
    expect(started.navigation).toMatchObject({ tab_id: started.tab_id, url, title: "Tiny Shop", status: 200, navigated: true });
    expect(r.json.timings).toMatchObject({ navigate: expect.any(Number), navigate_extension: expect.any(Number) });
    const s = started.session_id;
    const ops = (await w.ok(["ops", "--session", s])).ops;
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({ method: "navigate", session_id: s, effect_state: "committed" });
    expect((await w.ok(["evaluate", "document.title", "--session", s])).value).toBe("Tiny Shop");

    const human = await w.bsk(["session", "start", w.fixtures.url("/echo-title/Second"), "--no-focus"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^[a-z0-9]{4}\n$/);
    const s2 = human.stdout.trim();
    expect((await w.ok(["evaluate", "document.title", "--session", s2])).value).toBe("Second");
    await w.ok(["session", "stop", "--all"]);
  });

  test("a first page that does not load ends the session: its window closes, the error says so", async () => {
    const windows = await windowCount();
    // Port 9 is on Chromium's unsafe list: the request never leaves the browser.
    const r = await w.bsk(["session", "start", "http://127.0.0.1:9/", "--no-focus", "--json"]);
    expect(r.code).not.toBe(0);
    expect(r.json.error).toMatchObject({
      code: "cdp_failed",
      data: { reason: "navigation_failed", session_ended: true, effect_state: "none" },
    });
    expect(r.json.error.message).toContain("the session was ended");
    const s = r.json.error.data.session_id;
    const [ended] = (await w.ok(["session", "list", "--session", s])).sessions;
    expect(ended).toMatchObject({ state: "ended", end_reason: "start_failed" });
    await until("the failed session's window to close", async () => (await windowCount()) === windows);
  });

  test("what cannot be a first page is refused before any window opens", async () => {
    const windows = await windowCount();
    const sessions = await sessionCount();
    const refusals: [string[], string, string | undefined][] = [
      [["javascript:alert(1)"], "invalid_params", undefined],
      [["list"], "invalid_params", "not_a_url"],
      [["http://[::1"], "invalid_params", undefined],
      [
        [w.fixtures.crossUrl("/echo-title/outside"), "--allow-origin", new URL(w.fixtures.url("/")).origin],
        "permission_denied",
        "origin_not_allowed",
      ],
    ];
    for (const [args, code, reason] of refusals) {
      const r = await w.bsk(["session", "start", ...args, "--no-focus", "--json"]);
      expect(r.json?.ok).toBe(false);
      expect(r.json.error.code).toBe(code);
      if (reason) expect(r.json.error.data.reason).toBe(reason);
    }
    expect(w.fixtures.hits("/echo-title/outside")).toBe(0);
    expect(await sessionCount()).toBe(sessions);
    expect(await windowCount()).toBe(windows);
  });

  test("a file: first page is refused by the extension's rules and the session ends; nothing is read", async () => {
    const windows = await windowCount();
    const r = await w.bsk(["session", "start", "file:///etc/passwd", "--no-focus", "--json"]);
    expect(r.json.error).toMatchObject({
      code: "permission_denied",
      data: { reason: "restricted_url", rule: "file_urls_off", session_ended: true, effect_state: "none" },
    });
    expect(JSON.stringify(r.json)).not.toContain("root:");
    await until("the refused session's window to close", async () => (await windowCount()) === windows);
  });

  test("the browser's own pages and bsk's popup are never a first page", async () => {
    const windows = await windowCount();
    for (const url of [
      "chrome://settings",
      `chrome-extension://${EXTENSION_ID}/popup.html`,
      "devtools://devtools/bundled/inspector.html",
    ]) {
      const r = await w.bsk(["session", "start", url, "--no-focus", "--json"]);
      expect(r.json?.ok).toBe(false);
      expect(r.json.error).toMatchObject({ code: "permission_denied", data: { reason: "restricted_url", session_ended: true } });
    }
    await until("the refused sessions' windows to close", async () => (await windowCount()) === windows);
    // bsk's popup never loaded in a session tab: no page of it is open.
    expect((await w.person.pages()).some((p) => p.url.includes("popup.html"))).toBe(false);
  });
});
