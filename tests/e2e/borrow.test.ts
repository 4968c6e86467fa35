/**
 * Borrowing the person's tabs with their consent, and giving them back. The person is a second CDP client: it
 * types into its own tabs, clicks Allow / Deny in bsk's consent window, and uses an extension page of bsk's as
 * its hands for what only chrome.* can do (pin, mute, drag a tab, close a window, flip the popup switch).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { evaluateInFrame, serviceWorker, stopServiceWorker } from "./devtools.ts";
import { BSK, until, useWorld, type Run, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

let w: World;

useWorld({}, (world) => (w = world));

afterEach(async () => {
  await setConfirm(true);
  await w.bsk(["session", "stop", "--all"]);
  // A consent window still closing would be the next test's prompt.
  await until("every consent window to close", async () => (await consentPages()) === 0);
});

const chrome = (expression: string) => w.person.asExtension(expression);

/** What the browser says about a tab, as the person's hands see it. */
async function tabState(tabId: number): Promise<{ windowId: number; index: number; pinned: boolean; muted: boolean; groupId: number }> {
  return chrome(
    `chrome.tabs.get(${tabId}).then((t) => ({ windowId: t.windowId, index: t.index, pinned: t.pinned, muted: t.mutedInfo.muted, groupId: t.groupId }))`,
  );
}

/** The popup's "Confirm before borrowing tabs" switch, set directly (tests that only need it off to go faster). */
async function setConfirm(on: boolean): Promise<void> {
  await chrome(`chrome.storage.local.set({ confirm_borrow: ${on} })`);
}

/** The person opens bsk's popup (as a page) and clicks "Confirm before borrowing tabs". */
async function clickConfirmSwitch(): Promise<boolean> {
  await w.person.openTab(`chrome-extension://${EXTENSION_ID}/popup.html?borrow-switch`);
  const popup = await PersonPage.find(w.browser.cdpPort!, "/popup.html?borrow-switch");
  try {
    await popup.waitFor(`document.querySelector('input[name="confirm_borrow"]') !== null`);
    const before: boolean = await popup.evaluate(`document.querySelector('input[name="confirm_borrow"]').checked`);
    await popup.clickSelector('input[name="confirm_borrow"]');
    await popup.waitFor(`chrome.storage.local.get("confirm_borrow").then((v) => v.confirm_borrow === ${!before})`);
    return !before;
  } finally {
    await popup.closeTab();
  }
}

/** The person opens a page in a tab of their own window (or a new window); its browser tab id and DevTools target. */
async function personTab(marker: string, opts: { newWindow?: boolean } = {}): Promise<{ tabId: number; targetId: string }> {
  const url = w.fixtures.url(`/borrow-form.html?${marker}`);
  const tabId: number = opts.newWindow
    ? await chrome(`chrome.windows.create({ url: ${JSON.stringify(url)}, focused: false }).then((win) => win.tabs[0].id)`)
    : await w.person.openInOwnWindow(url);
  const { targetId } = await w.person.waitForPage(marker);
  return { tabId, targetId };
}

async function consentPages(): Promise<number> {
  return (await w.person.pages()).filter((p) => p.url.includes(`${EXTENSION_ID}/consent.html`)).length;
}

function fails(r: Run, code: string, reason?: string): void {
  if (r.json?.ok !== false) throw new Error(`expected ${code}, got exit ${r.code}:\n${r.stdout}\n${r.stderr}`);
  expect(r.json.error.code).toBe(code);
  if (reason) expect(r.json.error.data?.reason).toBe(reason);
}

const borrow = (s: string, tabId: number, extra: string[] = []) =>
  w.bsk(["tab", "borrow", String(tabId), "--session", s, "--json", ...extra]);

describe("tab borrow with the person's consent", () => {
  test("allowed: the tab moves intact into the Agent Window, is the session's, and goes back where it was", async () => {
    const s = await w.startSession(["--name", "write a letter"]);
    const { tabId, targetId } = await personTab("allowed");
    await w.person.typeInto(targetId, "#to", "Dear Ada");
    await chrome(`chrome.tabs.update(${tabId}, { pinned: true, muted: true })`);
    const before = await tabState(tabId);
    const loadedAt = await w.person.evaluateIn(targetId, "window.loadedAt");

    const pending = borrow(s, tabId);
    const shown = await w.person.answerConsent(true);
    expect(shown.session).toContain("write a letter");
    expect(shown.session).toContain(s);
    expect(shown.title).toBe("Draft letter");
    expect(shown.url).toContain("allowed");
    expect(shown.countdown).toMatch(/\d+ s/);
    const r = await pending;
    expect(r.code).toBe(0);
    const agentWindow = (await w.ok(["tab", "list", "--session", s])).tabs.find((t: any) => t.ownership === "created").window_id;
    expect(r.json.result).toMatchObject({
      tab_id: tabId,
      window_id: agentWindow,
      asked: true,
      current_tab_id: tabId,
      from: { window_id: before.windowId, index: before.index, pinned: true, muted: true, group_id: -1 },
    });
    expect(await consentPages()).toBe(0);

    // Same document, same script state, the person's typing still there.
    expect((await tabState(tabId)).windowId).toBe(agentWindow);
    expect(
      (await w.ok(["evaluate", "[document.getElementById('to').value, window.loads, window.loadedAt]", "--session", s])).value,
    ).toEqual(["Dear Ada", 1, loadedAt]);
    expect((await w.ok(["snapshot", "--session", s])).text).toContain('heading "Draft letter"');
    const listed = (await w.ok(["tab", "list", "--session", s])).tabs.find((t: any) => t.tab_id === tabId);
    expect(listed).toMatchObject({ owner: "session", ownership: "borrowed", current: true });

    // It is the person's: closing it is refused.
    fails(await w.bsk(["tab", "close", String(tabId), "--session", s, "--json"]), "permission_denied", "borrowed_tab");

    const back = await w.ok(["tab", "return", String(tabId), "--session", s]);
    expect(back).toMatchObject({ tab_id: tabId, window_id: before.windowId, index: before.index, fallback: false });
    expect(back.current_tab_id).not.toBe(tabId);
    expect(await tabState(tabId)).toEqual(before);
    expect(await w.person.evaluateIn(targetId, "document.getElementById('to').value")).toBe("Dear Ada");
    fails(await w.bsk(["evaluate", "1", "--tab", String(tabId), "--session", s, "--json"]), "permission_denied", "agent_window_scope");
    fails(await w.bsk(["tab", "return", String(tabId), "--session", s, "--json"]), "permission_denied", "agent_window_scope");
    await chrome(`chrome.tabs.update(${tabId}, { pinned: false, muted: false })`);
  });

  test("denied: the tab never moves", async () => {
    const s = await w.startSession();
    const { tabId } = await personTab("denied");
    const before = await tabState(tabId);
    const pending = borrow(s, tabId);
    await w.person.answerConsent(false);
    const r = await pending;
    expect(r.code).toBe(1);
    fails(r, "permission_denied", "borrow_denied");
    expect(r.json.error.hint).toContain("do not ask again");
    expect(await tabState(tabId)).toEqual(before);
    expect((await w.ok(["tab", "list", "--session", s])).tabs.some((t: any) => t.tab_id === tabId)).toBe(false);
    await until("the consent window to close", async () => (await consentPages()) === 0);
  });

  test("keys the person meant for their page (Shift+Tab, Enter) lend nothing, at once or later", async () => {
    const s = await w.startSession();
    const { tabId } = await personTab("keys");
    const before = await tabState(tabId);
    const pending = borrow(s, tabId);
    await w.person.waitForPage("/consent.html");
    const consent = await PersonPage.find(w.browser.cdpPort!, "/consent.html");
    try {
      // The window opens focused, over what the person was typing: their next keys land in it as soon as it shows.
      await consent.waitFor(`document.getElementById("card")?.hidden === false`);
      await consent.press("Tab", true);
      await consent.press("Enter");
      // Nor once Allow has been seen long enough to take the person's click: keys count only after a press in the card.
      await consent.waitFor(`document.getElementById("allow").disabled === false`);
      await consent.press("Tab", true);
      await consent.press("Enter");
      await w.person.answerConsent(false);
      fails(await pending, "permission_denied", "borrow_denied");
    } finally {
      consent.close();
    }
    expect(await tabState(tabId)).toEqual(before);
    expect((await w.ok(["tab", "list", "--session", s])).tabs.some((t: any) => t.tab_id === tabId)).toBe(false);
  });

  test("no answer before the countdown ends: timed out, the tab never moves", async () => {
    const s = await w.startSession();
    const { tabId } = await personTab("unanswered");
    const before = await tabState(tabId);
    const pending = borrow(s, tabId, ["--timeout", "1s"]);
    await w.person.waitForPage("/consent.html");
    const r = await pending;
    fails(r, "permission_denied", "borrow_timed_out");
    expect(await tabState(tabId)).toEqual(before);
    await until("the consent window to close", async () => (await consentPages()) === 0);
  });

  test("the person closes the consent window without answering: denied", async () => {
    const s = await w.startSession();
    const { tabId } = await personTab("closed-prompt");
    const before = await tabState(tabId);
    const pending = borrow(s, tabId);
    const page = await w.person.waitForPage("/consent.html");
    await w.person.send("Target.closeTarget", { targetId: page.targetId });
    const r = await pending;
    fails(r, "permission_denied", "borrow_denied");
    expect(await tabState(tabId)).toEqual(before);
  });

  test("the person closes the tab while being asked: the prompt goes, not_found", async () => {
    const s = await w.startSession();
    const { tabId } = await personTab("closed-tab");
    const pending = borrow(s, tabId);
    await w.person.waitForPage("/consent.html");
    await chrome(`chrome.tabs.remove(${tabId})`);
    fails(await pending, "not_found");
    await until("the consent window to close", async () => (await consentPages()) === 0);
  });

  test("the tab goes to another site while the person is asked: an Allow given for the old page lends nothing", async () => {
    const s = await w.startSession();
    const { tabId } = await personTab("changed-site");
    const pending = borrow(s, tabId);
    await w.person.waitForPage("/consent.html");
    const elsewhere = w.fixtures.crossUrl("/echo-title/elsewhere");
    await chrome(`chrome.tabs.update(${tabId}, { url: ${JSON.stringify(elsewhere)} })`);
    await until("the tab to show the other site", async () => (await chrome(`chrome.tabs.get(${tabId}).then((t) => t.url)`)) === elsewhere);
    const before = await tabState(tabId);
    await w.person.answerConsent(true);
    const r = await pending;
    fails(r, "permission_denied", "borrow_denied");
    expect(r.json.error.data.detail).toBe("tab_changed");
    expect(await tabState(tabId)).toEqual(before);
  });

  test("Ctrl-C while the person is deciding: cancelled, the prompt closes, the tab never moves", async () => {
    const s = await w.startSession();
    const { tabId } = await personTab("ctrl-c");
    const before = await tabState(tabId);
    const proc = Bun.spawn([BSK, "tab", "borrow", String(tabId), "--session", s, "--json"], { env: w.env, stdout: "pipe", stderr: "pipe" });
    await w.person.waitForPage("/consent.html");
    proc.kill("SIGINT");
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(2);
    expect(JSON.parse(out).error.code).toBe("cancelled");
    await until("the consent window to close", async () => (await consentPages()) === 0);
    expect(await tabState(tabId)).toEqual(before);
    expect((await w.ok(["tab", "list", "--scope", "all", "--session", s])).tabs.find((t: any) => t.tab_id === tabId).owner).toBe("person");
  });

  test("the service worker restarting during the prompt: the call fails, the prompt goes, the tab never moves", async () => {
    const s = await w.startSession();
    const { tabId } = await personTab("worker-restart");
    const before = await tabState(tabId);
    const pending = borrow(s, tabId);
    await w.person.waitForPage("/consent.html");
    const { targetInfos } = await w.person.send("Target.getTargets");
    const sw = targetInfos.find((t: any) => t.type === "service_worker" && t.url.includes(EXTENSION_ID));
    await w.person.send("Target.closeTarget", { targetId: sw.targetId });
    const r = await pending;
    // The daemon lost the reply with the worker: the agent hears the browser went away, the outcome unknown.
    fails(r, "cdp_failed", "browser_gone");
    await w.person.openTab(`chrome-extension://${EXTENSION_ID}/connect.html?port=${w.port}&label=e2e&close=1`);
    await until("the consent window to close", async () => (await consentPages()) === 0);
    await until("the session to be usable again", async () => (await w.bsk(["tab", "list", "--session", s])).code === 0);
    expect(await tabState(tabId)).toEqual(before);
    expect((await w.ok(["tab", "list", "--scope", "all", "--session", s])).tabs.find((t: any) => t.tab_id === tabId).owner).toBe("person");
  });

  test("with confirmation turned off in the popup's setting: borrowed without a prompt, the rules still hold", async () => {
    const a = await w.startSession();
    const b = await w.startSession();
    const { tabId } = await personTab("no-confirm");
    expect(await clickConfirmSwitch()).toBe(false);
    const r = await borrow(a, tabId);
    expect(r.code).toBe(0);
    expect(r.json.result.asked).toBe(false);
    expect(await consentPages()).toBe(0);
    fails(await borrow(b, tabId), "permission_denied", "borrow_conflict");
    fails(await borrow(a, tabId), "invalid_params", "already_owned");
    const bOwn = (await w.ok(["tab", "list", "--session", b])).tabs[0].tab_id;
    fails(await borrow(a, bOwn), "permission_denied", "borrow_conflict");
    fails(await borrow(a, 987654), "not_found");
    const restricted = await w.person.openInOwnWindow("chrome://version");
    fails(await borrow(a, restricted), "permission_denied", "restricted_url");
    await chrome(`chrome.tabs.remove(${restricted})`);
    expect(await consentPages()).toBe(0);
  });

  test("tab list --scope user shows the person's tabs by origin, path and title; the full URL only once lent", async () => {
    const a = await w.startSession();
    const b = await w.startSession();
    const { tabId } = await personTab("inbox&token=s3cr3t#code=fr4g");
    const full = w.fixtures.url("/borrow-form.html?inbox&token=s3cr3t#code=fr4g");
    const listed = async (s: string, scope: string) =>
      (await w.ok(["tab", "list", "--scope", scope, "--session", s])).tabs.find((t: any) => t.tab_id === tabId);
    const outline = { url: w.fixtures.url("/borrow-form.html"), title: "Draft letter" };
    expect(await listed(a, "user")).toMatchObject({ ...outline, owner: "person" });
    expect(await listed(a, "all")).toMatchObject({ ...outline, owner: "person" });
    const text = (await w.bsk(["tab", "list", "--scope", "all", "--session", a])).stdout;
    expect(text).toContain("borrow-form.html");
    expect(text).not.toContain("s3cr3t");
    expect(text).not.toContain("fr4g");

    await setConfirm(false);
    expect((await borrow(a, tabId)).code).toBe(0);
    expect(await listed(a, "owned")).toMatchObject({ url: full, ownership: "borrowed" });
    // Lent to a, not to b: b still sees only where it is.
    expect(await listed(b, "all")).toMatchObject({ ...outline, owner: "other_session" });
    await w.ok(["tab", "return", String(tabId), "--session", a]);
    expect(await listed(a, "user")).toMatchObject({ ...outline, owner: "person" });
    await chrome(`chrome.tabs.remove(${tabId})`);
  });

  test("two sessions racing for one tab: exactly one asks and wins", async () => {
    const a = await w.startSession();
    const b = await w.startSession();
    const { tabId } = await personTab("race");
    const runs = [borrow(a, tabId), borrow(b, tabId)];
    // The loser is refused at once, while the winner's prompt is still up.
    const loser = await Promise.race(runs.map((p, i) => p.then((r) => ({ r, i }))));
    fails(loser.r, "permission_denied", "borrow_conflict");
    await w.person.waitForPage("/consent.html");
    expect(await consentPages()).toBe(1);
    await w.person.answerConsent(true);
    const winner = await runs[1 - loser.i]!;
    expect(winner.code).toBe(0);
    const [winnerId, loserId] = loser.i === 0 ? [b, a] : [a, b];
    expect((await w.ok(["tab", "list", "--session", winnerId])).tabs.some((t: any) => t.tab_id === tabId)).toBe(true);
    fails(await borrow(loserId, tabId), "permission_denied", "borrow_conflict");
    fails(
      await w.bsk(["evaluate", "1", "--tab", String(tabId), "--session", loserId, "--json"]),
      "permission_denied",
      "agent_window_scope",
    );
  });
});

describe("giving tabs back", () => {
  test("session stop returns borrowed tabs to their place and closes only the session's own", async () => {
    const s = await w.startSession();
    const { tabId } = await personTab("stop-returns");
    const before = await tabState(tabId);
    await setConfirm(false);
    await w.ok(["tab", "borrow", String(tabId), "--session", s]);
    const created = await w.ok(["tab", "create", w.fixtures.url("/echo-title/agent-own"), "--session", s]);
    const stopped = await w.ok(["session", "stop", s]);
    expect(stopped.returned_tab_ids).toEqual([tabId]);
    expect(stopped.closed_tab_ids).toContain(created.tab_id);
    expect(await tabState(tabId)).toEqual(before);
  });

  test("the original window is gone: the tab goes to a window of the person's, never to an Agent Window", async () => {
    const a = await w.startSession();
    const b = await w.startSession();
    // Alone in its own window, the tab's window closes when it moves out.
    const { tabId } = await personTab("fallback", { newWindow: true });
    const original = (await tabState(tabId)).windowId;
    await setConfirm(false);
    await w.ok(["tab", "borrow", String(tabId), "--session", a]);
    expect(await chrome(`chrome.windows.get(${original}).then(() => true, () => false)`)).toBe(false);
    const agentWindows = await Promise.all([a, b].map(async (s) => (await w.ok(["tab", "list", "--session", s])).tabs[0].window_id));
    // Session b's Agent Window is the one the person looked at last.
    await chrome(`chrome.windows.update(${agentWindows[1]}, { focused: true })`);
    const back = await w.ok(["tab", "return", String(tabId), "--session", a]);
    expect(back.fallback).toBe(true);
    expect(agentWindows).not.toContain(back.window_id);
    const win = await chrome(`chrome.windows.get(${back.window_id}).then((w) => ({ type: w.type, incognito: w.incognito }))`);
    expect(win).toEqual({ type: "normal", incognito: false });
  });

  test("the person closes the Agent Window holding a borrowed tab: the session ends and reports the tab lost", async () => {
    const s = await w.startSession();
    const { tabId } = await personTab("lost");
    await setConfirm(false);
    const borrowed = await w.ok(["tab", "borrow", String(tabId), "--session", s]);
    await chrome(`chrome.windows.remove(${borrowed.window_id})`);
    const ended = await until("the session to end", async () => {
      const list = (await w.ok(["session", "list"])).sessions;
      return list.find((x: any) => x.session_id === s && x.state === "ended");
    });
    expect(ended.end_reason).toBe("window_closed");
    expect(ended.lost_tab_ids).toEqual([tabId]);
  });
});

describe("a lent tab across a worker restart", () => {
  /** The extension's service worker stopped (as Chrome stops an idle one), back, and session `s` usable again. */
  async function restartWorker(s: string): Promise<void> {
    const old = await stopServiceWorker(w.person);
    await until("the worker to come back", async () => {
      const sw = await serviceWorker(w.person);
      return sw && sw.targetId !== old;
    });
    await until("the session to be usable again", async () => (await w.bsk(["tab", "list", "--session", s])).code === 0);
  }

  // Issue 40: with the page-world script run at once (runImmediately) in a lent tab, this hung the whole browser once.
  test("tab return after the worker restarted: the tab and its out-of-process frame go back, the browser keeps answering", async () => {
    const s = await w.startSession();
    const tabId = await w.person.openInOwnWindow(w.fixtures.url("/snap-frames.html?lent-restart"));
    const { targetId } = await w.person.waitForPage("snap-frames.html?lent-restart");
    try {
      await setConfirm(false);
      expect((await borrow(s, tabId)).code).toBe(0);
      expect((await w.ok(["snapshot", "--session", s])).text).toContain('button "Inner button"');
      await restartWorker(s);
      // The restarted worker takes the surviving attachment over; its iframe is reported again, attached paused.
      expect((await w.ok(["snapshot", "--session", s])).text).toContain('button "Inner button"');
      await w.ok(["tab", "return", String(tabId), "--session", s]);
      // The person's own DevTools connection: the browser answers (Person.send fails a command unanswered for 20 s),
      // and so do the page and its cross-site frame (neither left paused).
      const { targetInfos } = await w.person.send("Target.getTargets");
      expect(targetInfos.some((t: any) => t.targetId === targetId)).toBe(true);
      expect(await w.person.evaluateIn(targetId, "document.title")).toBe("Snap Frames");
      expect(await evaluateInFrame(w.browser.cdpPort!, "snap-frame-inner.html?cross", "location.search")).toBe("?cross");
    } finally {
      await chrome(`chrome.tabs.remove(${tabId})`);
    }
  });

  test("each worker restart leaves the browser-prompt watch as it was: one registration, the page wrapped once, prompts still reported", async () => {
    const s = await w.startSession();
    const { tabId, targetId } = await personTab("prompt-watch-restart");
    // The person's own DevTools, attached before bsk: its script runs first in every new document and counts how
    // often the prompt watch's script runs there (each run reads its binding once; kept, so no run stops early).
    const { sessionId } = await w.person.send("Target.attachToTarget", { targetId, flatten: true });
    await w.person.send("Page.enable", {}, sessionId);
    await w.person.send(
      "Page.addScriptToEvaluateOnNewDocument",
      {
        source: `(() => {
          const binding = globalThis.__bskPrompt;
          if (typeof binding !== "function") return;
          let reads = 0;
          Object.defineProperty(globalThis, "__bskPrompt", { get: () => (reads++, binding), configurable: false });
          Object.defineProperty(globalThis, "promptWatchRuns", { get: () => reads });
        })()`,
      },
      sessionId,
    );
    try {
      // The page's own script counts its permission queries: the prompt watch asks each permission's state once
      // wherever it runs (page-prompts.ts), so the count tells how often it ran in the document shown at the loan.
      await w.person.evaluateIn(
        targetId,
        "const q = Permissions.prototype.query; window.queries = 0; Permissions.prototype.query = function (...a) { window.queries++; return q.apply(this, a); }; 1",
      );
      await setConfirm(false);
      expect((await borrow(s, tabId)).code).toBe(0);
      await w.ok(["snapshot", "--session", s]);
      const once = await w.person.evaluateIn(targetId, "window.queries");
      expect(once).toBeGreaterThan(0);
      for (let i = 0; i < 2; i++) {
        await restartWorker(s);
        // The restarted worker takes the surviving attachment over, its registrations with it.
        await w.ok(["snapshot", "--session", s]);
      }
      expect(await w.person.evaluateIn(targetId, "window.queries")).toBe(once);
      // Each re-adoption added the script again: the next document ran it 3 times after two restarts.
      await w.ok(["reload", "--session", s]);
      expect(await w.person.evaluateIn(targetId, "window.promptWatchRuns")).toBe(1);
      // Still watching, through the one registration and its binding added again: this document and the next one
      // (dismiss reloads the page).
      for (const round of ["this document", "the next one"]) {
        const r = await w.bsk(["evaluate", "print(); 1", "--session", s, "--json"]);
        expect(r.json?.result, round).toMatchObject({ value: 1, prompt: { kind: "print", pending: true } });
        await w.ok(["dialog", "dismiss", "--session", s]);
        await until(
          "the reloaded page",
          async () => (await w.ok(["evaluate", "document.readyState", "--session", s])).value === "complete",
        );
      }
      await w.ok(["tab", "return", String(tabId), "--session", s]);
      const { targetInfos } = await w.person.send("Target.getTargets");
      expect(targetInfos.some((t: any) => t.targetId === targetId)).toBe(true);
    } finally {
      await w.person.send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
      await chrome(`chrome.tabs.remove(${tabId})`);
    }
  });
});

describe("what a lent tab shows the agent", () => {
  test("the page it was showing has no work registry: an action's effect still waits for the frame after its input", async () => {
    const s = await w.startSession();
    const url = w.fixtures.url("/act-effects.html?lent");
    const tabId = await w.person.openInOwnWindow(url);
    await w.person.waitForPage("act-effects.html?lent");
    await setConfirm(false);
    expect((await borrow(s, tabId)).code).toBe(0);
    const js = async (e: string) => (await w.ok(["evaluate", e, "--session", s])).value;
    // Loaded before bsk attached: nothing in the page's world answers the asks (nothing queued, nothing due: no).
    expect(await js(`document.dispatchEvent(new Event("bsk-work-ask", { cancelable: true }))`)).toBe(true);
    expect(await js(`document.dispatchEvent(new Event("bsk-work-due", { cancelable: true }))`)).toBe(true);
    expect(await js("String(setTimeout)")).toBe("function setTimeout() { [native code] }");
    for (let i = 1; i <= 4; i++) {
      expect((await w.ok(["click", "#later", "--session", s])).effect).toEqual({ kind: "dom_changed", dom_changed: true });
      expect(await js(`document.getElementById("status").textContent`)).toBe(`changed in frame ${i}`);
    }
    expect((await w.ok(["click", "#nothing", "--session", s])).effect).toEqual({ kind: "none", dom_changed: false });
    await w.ok(["tab", "return", String(tabId), "--session", s]);
    await chrome(`chrome.tabs.remove(${tabId})`);
  });

  test("console and network start at the person's consent: nothing logged or requested before it, not even across borrows", async () => {
    const s = await w.startSession();
    const { tabId, targetId } = await personTab("diag-lent");
    // The person's own page logs a secret and makes requests before lending the tab; one is still in flight.
    await w.person.evaluateIn(
      targetId,
      "console.log('token=hunter2'); console.error('person error'); window.held = fetch('/hold/lent-early'); fetch('/status/200?before-consent').then((r) => r.status)",
    );
    await w.fixtures.seen("/hold/lent-early");

    const pending = borrow(s, tabId);
    await w.person.answerConsent(true);
    expect((await pending).code).toBe(0);
    w.fixtures.release("lent-early");
    await w.person.evaluateIn(targetId, "window.held.then((r) => r.status)");
    await w.ok(["evaluate", "console.log('after consent'); fetch('/status/200?after-consent').then((r) => r.status)", "--session", s]);

    const texts = async () => (await w.ok(["console", "--session", s])).messages.map((m: any) => m.text);
    const urls = async () => (await w.ok(["network", "--session", s])).requests.map((r: any) => r.url);
    expect(await texts()).toEqual(["after consent"]);
    expect(await urls()).toEqual([w.fixtures.url("/status/200?after-consent")]);

    // Given back, used by the person, lent again: the second loan starts empty too (nothing of the first one's).
    await w.ok(["tab", "return", String(tabId), "--session", s]);
    await w.person.evaluateIn(targetId, "console.log('between loans'); fetch('/status/200?between').then((r) => r.status)");
    const again = borrow(s, tabId);
    await w.person.answerConsent(true);
    expect((await again).code).toBe(0);
    expect(await texts()).toEqual([]);
    expect(await urls()).toEqual([]);
    await w.ok(["evaluate", "console.log('second loan'); 1", "--session", s]);
    expect(await texts()).toEqual(["second loan"]);
  });
});
