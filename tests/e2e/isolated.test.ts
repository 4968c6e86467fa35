/**
 * session start --isolated: an incognito window of the session's own, without the person's cookies, storage or
 * logins, discarded at stop. The person allows bsk in Incognito the way they would: on chrome://extensions.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { DEVELOPER_MODE, incognitoAccess, onExtensionsPage, relinkedAfter } from "./extensions-page.ts";
import { startWorld, until, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

let w: World;

beforeAll(async () => {
  // The person logs in to the fixture site in an ordinary tab (an HttpOnly cookie), and the site keeps a readable
  // cookie and a localStorage entry too.
  w = await startWorld({
    browserUrls: (f) => [f.url("/login?user=ada")],
    prefs: (home) => ({ download: { default_directory: join(home, "browser-downloads"), prompt_for_download: false } }),
  });
  await w.fixtures.seen("/account");
  const page = await PersonPage.find(w.browser.cdpPort!, "/account");
  await page.evaluate(`document.cookie = "pref=dark; path=/"; localStorage.setItem("who", "ada")`);
  page.close();
}, 60_000);

afterAll(async () => {
  await w?.stop();
});

// A test that fails half-way leaves no isolated session behind: the next one would share its incognito cookies.
afterEach(async () => {
  await w.bsk(["session", "stop", "--all"]);
});

interface Seen {
  header: string;
  cookie: string;
  who: string | null;
}

/** What /whoami shows in the session's current tab: the Cookie header the server got, document.cookie, localStorage. */
async function whoami(s: string): Promise<Seen> {
  await w.ok(["navigate", w.fixtures.url("/whoami"), "--session", s]);
  const r = await w.ok([
    "evaluate",
    `({ header: document.getElementById("header").textContent.replace(/^header: /, ""), ...JSON.parse(document.getElementById("page").textContent.replace(/^page: /, "")) })`,
    "--session",
    s,
  ]);
  return r.value;
}

async function fails(args: string[], code: string, reason?: string): Promise<any> {
  const r = await w.bsk([...args, "--json"]);
  expect(r.code, r.stdout + r.stderr).not.toBe(0);
  expect(r.json?.error?.code).toBe(code);
  if (reason) expect(r.json.error.data?.reason).toBe(reason);
  return r.json.error;
}

/** The browser contexts (profiles) of the pages whose URL contains `marker`. */
async function contextsOf(marker: string): Promise<string[]> {
  const { targetInfos } = await w.person.send("Target.getTargets");
  return targetInfos.filter((t: any) => t.type === "page" && t.url.includes(marker)).map((t: any) => t.browserContextId);
}

describe("isolated sessions", () => {
  test("without bsk allowed in Incognito: refused with how to allow it, and no window opens", async () => {
    const before = (await w.person.pages()).length;
    const e = await fails(["session", "start", "--isolated", "--no-focus"], "incognito_not_allowed");
    expect(e.hint).toContain("chrome://extensions");
    expect(e.hint).toContain("Allow in Incognito");
    expect((await w.person.pages()).length).toBe(before);
    const text = await w.bsk(["session", "start", "--isolated", "--no-focus"]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain("Allow in Incognito");
    expect((await w.ok(["session", "list"])).sessions.filter((s: any) => s.state !== "ended")).toEqual([]);
  });

  test("the person allows bsk in Incognito on chrome://extensions; the extension reloads and links again", async () => {
    await relinkedAfter(w, () => onExtensionsPage(w, DEVELOPER_MODE, incognitoAccess(true)));
    expect(await w.person.asExtension("chrome.extension.isAllowedIncognitoAccess()")).toBe(true);
  });

  test("an isolated session sees none of the person's cookies or storage; a normal session does", async () => {
    const iso = await w.startSession(["--isolated", "--name", "isolated one"]);
    const seen = await whoami(iso);
    expect(seen).toEqual({ header: "", cookie: "", who: null });
    // Its window is another browser context than the person's tabs.
    const [isoContext] = await contextsOf("/whoami");
    expect(isoContext).toBeDefined();
    expect((await contextsOf("/account"))[0]).not.toBe(isoContext);

    const normal = await w.startSession();
    const theirs = await whoami(normal);
    expect(theirs.header).toContain("sid=ada");
    expect(theirs.header).toContain("pref=dark");
    expect(theirs.cookie).toBe("pref=dark");
    expect(theirs.who).toBe("ada");
    await w.ok(["session", "stop", normal]);
    await w.ok(["session", "stop", iso]);
  });

  test("session list, status and tab list say the session is isolated", async () => {
    const s = await w.startSession(["--isolated"]);
    const [info] = (await w.ok(["session", "list", "--session", s])).sessions;
    expect(info.isolated).toBe(true);
    expect((await w.bsk(["session", "list", "--session", s])).stdout).toContain("isolated");
    const status = await w.ok(["status"]);
    expect(status.sessions.find((x: any) => x.session_id === s)?.isolated).toBe(true);
    const tabs = await w.ok(["tab", "list", "--session", s]);
    expect(tabs.isolated).toBe(true);
    expect((await w.bsk(["tab", "list", "--session", s])).stdout).toContain("isolated session");
    const normal = await w.startSession();
    expect((await w.ok(["tab", "list", "--session", normal])).isolated).toBeUndefined();
    // The popup marks it, in the person's words.
    await w.person.openTab(`chrome-extension://${EXTENSION_ID}/popup.html?isolated-mark`);
    const popup = await PersonPage.find(w.browser.cdpPort!, "/popup.html?isolated-mark");
    await popup.waitFor(`document.querySelector('li[data-session="${s}"] .isolated')?.textContent.includes("none of your logins")`);
    expect(await popup.evaluate(`document.querySelector('li[data-session="${normal}"] .isolated')`)).toBeNull();
    popup.close();
    await w.person.closePagesMatching("/popup.html?isolated-mark");
    await w.ok(["session", "stop", normal]);
    await w.ok(["session", "stop", s]);
  });

  test("snapshot, actions, a tab its page opens, screenshot and the pill work in the isolated window", async () => {
    const s = await w.startSession(["--isolated"]);
    await w.ok(["navigate", w.fixtures.url("/popup-opener.html?iso"), "--session", s]);
    const snap = await w.bsk(["snapshot", "--session", s]);
    expect(snap.stdout).toContain(`link "Open in new tab"`);
    const person = await PersonPage.find(w.browser.cdpPort!, "/popup-opener.html?iso");
    await person.waitOverlay("the pill on the isolated tab", (o) => !!o?.pill);
    person.close();
    const clicked = await w.ok(["click", "#blank", "--session", s]);
    expect(clicked.effect).toMatchObject({ kind: "new_tab" });
    const tabs = (await w.ok(["tab", "list", "--session", s])).tabs;
    expect(tabs).toHaveLength(2);
    expect(tabs.find((t: any) => t.url.includes("Blank%20child"))?.ownership).toBe("opened");
    // The page's new tab is incognito too: same context as the session's first tab.
    const contexts = new Set([...(await contextsOf("/popup-opener.html?iso")), ...(await contextsOf("Blank%20child"))]);
    expect(contexts.size).toBe(1);
    expect([...contexts][0]).not.toBe((await contextsOf("/account"))[0]);
    const shot = await w.ok(["screenshot", "--session", s, "--out", w.out]);
    expect(shot.path ?? shot.file ?? "").not.toBe("");
    await w.ok(["session", "stop", s]);
  });

  test("files: upload, download, a click's download kept; a download only the browser could take is refused, not prompted", async () => {
    const s = await w.startSession(["--isolated"]);
    const dir = join(w.home, "iso-files");
    mkdirSync(dir, { recursive: true });
    const cv = join(dir, "cv.txt");
    writeFileSync(cv, "Ada Lovelace, analyst\n");
    await w.ok(["navigate", w.fixtures.url("/files-upload.html"), "--session", s]);
    const up = await w.ok(["upload", "#single", "--file", cv, "--session", s]);
    expect(up.files).toEqual([expect.objectContaining({ name: "cv.txt", size: 22 })]);
    expect((await w.ok(["evaluate", "window.settled()", "--session", s])).value.single).toEqual([
      expect.objectContaining({ name: "cv.txt", size: 22 }),
    ]);

    await w.ok(["navigate", w.fixtures.url("/files-download.html"), "--session", s]);
    const notes = await w.ok(["download", "#small", "--out", join(dir, "notes.txt"), "--session", s]);
    expect(notes).toMatchObject({ size: 13, name: "notes.txt", effect_state: "committed" });
    expect(readFileSync(join(dir, "notes.txt")).length).toBe(13);
    // A download in a new tab could only go through the browser, whose incognito downloads always ask where to save:
    // refused before the prompt, nothing saved.
    const popup = await fails(["download", "#popup", "--out", join(dir, "popup.txt"), "--session", s], "unsupported", "download_prompted");
    expect(popup.data.incognito).toBe(true);
    expect(popup.message).toContain("incognito");
    expect(existsSync(join(dir, "popup.txt"))).toBe(false);
    const clicked = await w.ok(["click", "#small", "--session", s]);
    expect(clicked.effect.kind).toBe("download");
    await until("the click's download to be kept", async () =>
      (await w.ok(["downloads", "--session", s])).downloads?.some((d: any) => d.state === "complete"),
    );
    await w.ok(["session", "stop", s]);
    // Nothing of it stays in the browser's Downloads folder.
    const folder = join(w.home, "browser-downloads");
    const left = existsSync(folder) ? readdirSync(folder, { recursive: true }).map(String) : [];
    expect(left.filter((f) => !f.startsWith("bsk-") || f.includes("/"))).toEqual([]);
  });

  test("take over (the pill, the person's own keys), resume and request-help in the isolated window", async () => {
    const s = await w.startSession(["--isolated"]);
    await w.ok(["navigate", w.fixtures.url("/overlay.html?iso"), "--session", s]);
    const page = await PersonPage.find(w.browser.cdpPort!, "/overlay.html?iso");
    await page.waitOverlay("the pill", (o) => !!o?.pill && !!o.buttons.includes("takeover"));
    await page.clickOverlay("takeover");
    await until("taken over", async () => (await w.ok(["session", "list", "--session", s])).sessions[0].state === "taken_over");
    const refused = await fails(["snapshot", "--session", s], "user_aborted", "taken_over");
    expect(refused.hint).toContain("Resume");
    await page.waitOverlay("Resume offered", (o) => !!o?.buttons.includes("resume"));
    await page.clickOverlay("resume");
    await until("live again", async () => (await w.ok(["session", "list", "--session", s])).sessions[0].state === "live");

    // The person's own keys in the incognito tab take it over too (the hands script runs there).
    await w.ok(["focus", "#probe", "--session", s]);
    await page.typeKeys("x");
    await until(
      "taken over by the person's keys",
      async () => (await w.ok(["session", "list", "--session", s])).sessions[0].state === "taken_over",
    );
    const { events } = await w.ok(["events", "--session", s, "--type", "session"]);
    expect(events.filter((e: any) => e.event === "session.takeover").at(-1)?.data).toMatchObject({ cause: "input" });
    await page.waitOverlay("Resume offered", (o) => !!o?.buttons.includes("resume"));
    await page.clickOverlay("resume");
    await until("live again", async () => (await w.ok(["session", "list", "--session", s])).sessions[0].state === "live");

    const asking = w.bsk(["request-help", "--prompt", "Check this page", "--timeout", "20s", "--session", s, "--json"]);
    await page.waitOverlay("the help panel", (o) => !!o?.panel);
    await page.typeNote("checked");
    await page.clickOverlay("done");
    const r = await asking;
    expect(r.json.result).toMatchObject({ outcome: "continued", note: "checked" });
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("after stop the incognito window is gone, and a second isolated session does not see the first's cookie", async () => {
    const first = await w.startSession(["--isolated"]);
    await whoami(first);
    await w.ok([
      "evaluate",
      `document.cookie = "agent=first; path=/"; localStorage.setItem("who", "first"); document.cookie`,
      "--session",
      first,
    ]);
    expect((await whoami(first)).header).toContain("agent=first");
    const [context] = await contextsOf("/whoami");
    const stopped = await w.ok(["session", "stop", first]);
    expect(stopped.stopped).toEqual([first]);
    await until("the incognito window to go", async () => (await contextsOf("/whoami")).length === 0);
    const { targetInfos } = await w.person.send("Target.getTargets");
    expect(targetInfos.some((t: any) => t.browserContextId === context)).toBe(false);

    const second = await w.startSession(["--isolated"]);
    expect(await whoami(second)).toEqual({ header: "", cookie: "", who: null });
    await w.ok(["session", "stop", second]);
  });

  test("attack: tab borrow into an isolated session is refused; its tabs are never lent to another session", async () => {
    const iso = await w.startSession(["--isolated"]);
    const personTab = (
      await w.person.asExtension(
        `chrome.tabs.query({}).then((ts) => ts.filter((t) => t.url.includes("/account")).map((t) => ({ tab_id: t.id, window_id: t.windowId })))`,
      )
    )[0];
    expect(personTab).toBeDefined();
    const e = await fails(["tab", "borrow", String(personTab.tab_id), "--session", iso], "permission_denied", "isolated_session");
    expect(e.hint).toContain("isolated");
    // The person's tab did not move.
    expect(await w.person.asExtension(`chrome.tabs.get(${personTab.tab_id}).then((t) => t.windowId)`)).toBe(personTab.window_id);
    // Nor does the session see what the person has open: titles and sites are theirs, like their logins.
    for (const scope of ["user", "all"]) {
      const refused = await fails(["tab", "list", "--scope", scope, "--session", iso], "permission_denied", "isolated_session");
      expect(JSON.stringify(refused)).not.toContain("/account");
    }
    expect((await w.ok(["tab", "list", "--session", iso])).tabs.every((t: any) => t.owner === "session")).toBe(true);

    const normal = await w.startSession();
    const isoTab = (await w.ok(["tab", "list", "--session", iso])).tabs[0];
    await fails(["tab", "borrow", String(isoTab.tab_id), "--session", normal], "permission_denied", "borrow_conflict");
    await w.ok(["session", "stop", normal]);
    await w.ok(["session", "stop", iso]);
  });

  test("attack: --allow-origin still holds in an isolated session", async () => {
    const origin = new URL(w.fixtures.url("/")).origin;
    const s = await w.startSession(["--isolated", "--allow-origin", origin]);
    await w.ok(["navigate", w.fixtures.url("/echo-title/inside"), "--session", s]);
    await fails(["navigate", w.fixtures.crossUrl("/echo-title/outside"), "--session", s], "permission_denied", "origin_not_allowed");
    expect((await w.ok(["evaluate", "location.href", "--session", s])).value).toBe(w.fixtures.url("/echo-title/inside"));
    // The page's own navigation elsewhere is blocked by the browser's rules, which cover the incognito tab too.
    await w.ok(["navigate", w.fixtures.url("/guard.html"), "--session", s]);
    await fails(["click", "#cross", "--session", s], "permission_denied", "origin_not_allowed");
    expect((await w.ok(["evaluate", "location.href", "--session", s])).value).not.toContain("localhost");
    await w.ok(["session", "stop", s]);
  });

  test("attack: an incognito window of the person's is open: refused, its cookies would be shared", async () => {
    // The person opens an incognito window (Ctrl-Shift-N) and signs in there.
    const winId = await w.person.asExtension(
      `chrome.windows.create({ incognito: true, url: ${JSON.stringify(w.fixtures.url("/login?user=private"))} }).then((x) => x.id)`,
    );
    await until("the person's incognito sign-in", async () => (await contextsOf("/account")).length === 2);
    await fails(["session", "start", "--isolated", "--no-focus"], "incognito_not_allowed", "incognito_in_use");
    await w.person.asExtension(`chrome.windows.remove(${winId})`);
    const s = await w.startSession(["--isolated"]);
    expect((await whoami(s)).header).toBe("");
    await w.ok(["session", "stop", s]);
  });

  test("the person turns Allow in Incognito off mid-session: the session ends incognito_access_removed", async () => {
    const s = await w.startSession(["--isolated", "--name", "cut off"]);
    await w.ok(["navigate", w.fixtures.url("/whoami?cut-off"), "--session", s]);
    await relinkedAfter(w, () => onExtensionsPage(w, incognitoAccess(false)));
    // bsk can no longer see the incognito window to close it: the end says so, instead of "not adoptable".
    const record = await until("the session's end with its reason", async () => {
      const mine = (await w.ok(["session", "list"])).sessions.find((x: any) => x.session_id === s);
      return mine?.end_reason === "incognito_access_removed" ? mine : undefined;
    });
    expect(record.state).toBe("ended");
    await fails(["snapshot", "--session", s], "not_found", "session_ended");
  });
});
