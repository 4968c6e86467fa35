/**
 * Sites that ask first, end to end: the person lists an origin in the popup; on that site every page-changing call
 * waits for their Allow in the tab's overlay, which says what is about to happen. The person's Allow and Deny are
 * real clicks through the browser's DevTools port (person-page.ts); a hostile page's synthetic clicks and reads get
 * nowhere; Deny, the clock, the tab closing and the page navigating fail the call with approval_denied and nothing
 * done; reads are not asked; --confirm-writes asks on every site; the ledger (bsk ops) keeps each decision.
 * "Waiting" is made certain by the panel being up, never by sleeps.
 */
import { describe, expect, test } from "bun:test";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { evaluateInContentScript, evaluateInWorker } from "./devtools.ts";
import { refIn, until, useWorld, type Run, type World } from "./harness.ts";
import { PersonPage, type OverlayLook } from "./person-page.ts";

let w: World;
useWorld({}, (world) => (w = world));

const KEY = "ask_first_origins";
let marker = 0;
let popupPage: PersonPage | undefined;

const origin = () => new URL(w.fixtures.url("/")).origin;

async function popup(): Promise<PersonPage> {
  if (popupPage) return popupPage;
  await w.person.openTab(`chrome-extension://${EXTENSION_ID}/popup.html?ask`);
  popupPage = await PersonPage.find(w.browser.cdpPort!, "popup.html?ask");
  // The person acts on a settled popup: while the link is still coming up, its state line above the list comes and
  // goes, and a row that moves just before a press is missed by anyone (seen: the press landed on the next row).
  await popupPage.waitFor(`document.querySelector("main.connected .ask-first form") !== null`);
  return popupPage;
}

const stored = async () => (await popup()).evaluate(`chrome.storage.local.get("${KEY}").then((v) => v["${KEY}"] ?? null)`);

/** The person's list, set as the popup would (the popup's own form is tested on its own below). */
async function setList(origins: string[]): Promise<void> {
  await (await popup()).evaluate(`chrome.storage.local.set({ ${KEY}: ${JSON.stringify(origins)} })`);
  // The worker keeps the list it read until storage.onChanged reaches it, which follows set() shortly after.
  const want = JSON.stringify(origins);
  await until("the worker to drop or hold the new list", async () => {
    // A worker still starting has no hook yet (and, once it has, holds nothing).
    const held = await evaluateInWorker(w.browser.cdpPort!, `globalThis.bskAskFirstHeld?.().then((l) => JSON.stringify(l)) ?? "starting"`);
    return held === "null" || held === want;
  });
}

/** A new session on the fixture page (the navigate from about:blank is not asked) and the person's view of it. */
async function onFixture(extra: string[] = []): Promise<{ s: string; page: PersonPage; snap: string }> {
  const s = await w.startSession(extra);
  const m = ++marker;
  await w.ok(["navigate", w.fixtures.url(`/approval.html?m=${m}`), "--session", s]);
  const page = await PersonPage.find(w.browser.cdpPort!, `approval.html?m=${m}`);
  await page.waitFor(`document.readyState === "complete"`);
  const snap = (await w.ok(["snapshot", "--session", s])).text as string;
  return { s, page, snap };
}

const run = (s: string, args: string[]) => w.bsk([...args, "--session", s, "--json"]);

/** The approval panel is up (saying `text`). */
function asking(page: PersonPage, text: string): Promise<OverlayLook | null> {
  return page.waitOverlay(`the approval panel saying ${text}`, (o) => !!o?.buttons.includes("allow") && o.panelText.includes(text));
}

/** The person presses Allow or Deny once Allow takes clicks. */
async function answer(page: PersonPage, action: "allow" | "deny"): Promise<void> {
  await page.waitOverlay("Allow armed", (o) => !!o?.buttons.includes("allow") && !o.disabled.includes("allow"));
  await page.clickOverlay(action);
}

async function denied(r: Promise<Run>, decision: string, by: string): Promise<any> {
  const got = await r;
  if (got.json?.ok !== false) throw new Error(`expected approval_denied, got:\n${got.stdout}${got.stderr}`);
  expect(got.json.error.code).toBe("approval_denied");
  expect(got.code).toBe(12);
  expect(got.json.error.data).toMatchObject({ effect_state: "none", approval: { decision, by } });
  return got.json.error;
}

async function lastOp(s: string): Promise<any> {
  return (await w.ok(["ops", "--session", s])).ops.at(-1);
}

describe("the popup's ask-first list", () => {
  test("the person adds and removes origins; what is not an http(s) site is refused in words", async () => {
    const p = await popup();
    // Typed and submitted with Enter, as the keyboard does: a click can miss while the popup re-lays itself out
    // (it re-renders as the links' state changes in storage), which no look before the press can rule out.
    const add = async (text: string) => {
      await p.evaluate(`(() => { const i = document.querySelector('input[name="ask_first"]'); i.value = ""; i.focus(); return true; })()`);
      await p.waitFor(`document.activeElement?.name === "ask_first"`);
      await p.type(text);
      await p.waitFor(`document.querySelector('input[name="ask_first"]').value === ${JSON.stringify(text)}`);
      await p.press("Enter");
    };
    await add("ftp://files.example");
    await p.waitFor(`(document.querySelector(".ask-first .error")?.textContent ?? "").includes("https://")`);
    expect(await stored()).toBeNull();

    await add("bank.example");
    await p.waitFor(`document.querySelector('li[data-origin="https://bank.example"]') !== null`);
    await add(`${origin()}/approval.html?from=address-bar`);
    await p.waitFor(`document.querySelector('li[data-origin="${origin()}"]') !== null`);
    expect(await stored()).toEqual(["https://bank.example", origin()]);
    expect(await p.evaluate(`document.querySelector(".ask-first .error")`)).toBeNull();

    await p.clickSelector(`li[data-origin="https://bank.example"] button[data-action="remove"]`);
    await p.waitFor(`document.querySelector('li[data-origin="https://bank.example"]') === null`);
    expect(await stored()).toEqual([origin()]);
  });
});

describe("on an ask-first site", () => {
  test("reads are not asked; a click waits for Allow, says what it will do, then lands; the ledger says allowed", async () => {
    await setList([origin()]);
    const { s, page, snap } = await onFixture();
    // Reads run without the person (a short --timeout: one that asked could not answer in time).
    await w.ok(["screenshot", "--session", s, "--timeout", "5s", "--out", w.out]);
    await w.ok(["get-html", "--session", s, "--timeout", "5s"]);
    expect((await page.overlay())?.buttons ?? []).not.toContain("allow");

    const clicking = run(s, ["click", refIn(snap, "Pay now")]);
    const look = await asking(page, "click button 'Pay now'");
    expect(look!.panelText).toContain(origin());
    expect(await page.evaluate("clicks")).toEqual([]);
    await answer(page, "allow");
    const r = await clicking;
    expect(r.code).toBe(0);
    expect(r.json.result.approval).toMatchObject({
      decision: "allowed",
      by: "person",
      description: "click button 'Pay now'",
      cause: "ask_first_site",
      origin: origin(),
    });
    expect(await page.evaluate("clicks")).toEqual(["pay"]);
    await page.waitOverlay("the panel gone", (o) => !o?.buttons.includes("allow"));
    expect(await lastOp(s)).toMatchObject({
      method: "click",
      state: "executed",
      approval: { decision: "allowed", by: "person", description: "click button 'Pay now'" },
    });
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("observe is a read unless it hovers: asked only with --probe-hover", async () => {
    await setList([origin()]);
    const { s, page } = await onFixture();
    const plain = await run(s, ["observe", "--timeout", "5s"]);
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.json.result.approval).toBeUndefined();
    expect((await page.overlay())?.buttons ?? []).not.toContain("allow");

    const hovering = run(s, ["observe", "--probe-hover"]);
    await asking(page, "moving the pointer over it");
    await answer(page, "deny");
    await denied(hovering, "denied", "person");
    // It has no op in the ledger: the decision is the session's event.
    const events = (await w.ok(["events", "--session", s, "--type", "call.approval"])).events;
    expect(events.map((e: any) => e.data)).toEqual([
      expect.objectContaining({ method: "observe", decision: "denied", by: "person", cause: "ask_first_site", origin: origin() }),
    ]);
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("Deny: approval_denied, nothing typed, the value never shown; the ledger says denied", async () => {
    const { s, page, snap } = await onFixture();
    const filling = run(s, ["fill", refIn(snap, "Password"), "hunter2-secret"]);
    const look = await asking(page, "with 14 characters");
    expect(look!.panelText).toContain("Password");
    expect(look!.panelText).not.toContain("hunter2");
    await answer(page, "deny");
    const err = await denied(filling, "denied", "person");
    expect(JSON.stringify(err)).not.toContain("hunter2");
    expect(await page.evaluate(`document.getElementById("secret").value`)).toBe("");
    expect(await lastOp(s)).toMatchObject({
      method: "fill",
      state: "not_executed",
      effect_state: "none",
      reason: "approval_denied",
      approval: { decision: "denied", by: "person" },
    });
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("navigating away is asked too; denied, the tab stays where it was", async () => {
    const { s, page } = await onFixture();
    const away = w.fixtures.url("/overlay.html?away");
    const going = run(s, ["navigate", away]);
    await asking(page, `go to ${away}`);
    await answer(page, "deny");
    await denied(going, "denied", "person");
    expect(await page.evaluate("location.pathname")).toBe("/approval.html");
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("attack: the page's find() and another extension's content script read nothing the panel says (the URL, its token)", async () => {
    const { s, page } = await onFixture();
    const away = w.fixtures.url("/overlay.html?token=tok-9f3k2q7z");
    const going = run(s, ["navigate", away]);
    await asking(page, `go to ${away}`);
    // The person sees it (above); the page searching its own view for it finds nothing.
    const finds = ["tok-9f3k2q7z", "go to", "asked to be asked first"].map((text) => `window.find(${JSON.stringify(text)})`);
    expect(await page.evaluate(`[${finds.join(", ")}]`)).toEqual([false, false, false]);
    // An extension's content script opens even a closed shadow root (bsk's own world stands in for another one's).
    const read = `chrome.dom.openOrClosedShadowRoot(document.querySelector("bsk-overlay"))?.textContent ?? ""`;
    const text = (await evaluateInContentScript(w.browser.cdpPort!, `approval.html?m=${marker}`, read)) as string;
    expect(text).toContain("Allow");
    expect(text).not.toContain("tok-9f3k2q7z");
    expect(text).not.toContain("go to");
    await answer(page, "deny");
    await denied(going, "denied", "person");
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("calls queued on the tab are asked one at a time, in order", async () => {
    const { s, page, snap } = await onFixture();
    const filling = run(s, ["fill", refIn(snap, "Amount"), "123456789012"]);
    await asking(page, "fill textbox 'Amount' with 12 characters");
    const clicking = run(s, ["click", refIn(snap, "Other")]);
    await answer(page, "allow");
    expect((await filling).code).toBe(0);
    await asking(page, "click button 'Other'");
    await answer(page, "deny");
    await denied(clicking, "denied", "person");
    expect(await page.evaluate(`[document.getElementById("amount").value, clicks]`)).toEqual(["123456789012", []]);
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("a hostile page can neither read the panel nor press Allow with synthetic events", async () => {
    const { s, page, snap } = await onFixture();
    const clicking = run(s, ["click", refIn(snap, "Pay now")]);
    await asking(page, "click button 'Pay now'");
    await page.waitOverlay("Allow armed", (o) => !o?.disabled.includes("allow") && !!o?.buttons.includes("allow"));
    const seen = await page.evaluate("attack()");
    expect(seen).toEqual({ host: true, shadowRoot: false, text: false, buttons: 0 });
    // Still asking: the synthetic clicks counted for nothing.
    expect((await page.overlay())!.buttons).toContain("allow");
    // The page can reach the host's style, but the host puts it back before the page's script yields.
    const host = `document.querySelector("bsk-overlay")`;
    await page.evaluate(`${host}.style.setProperty("opacity", "0.05", "important"); true`);
    expect(await page.evaluate(`getComputedStyle(${host}).opacity`)).toBe("1");
    // An Allow the page made nearly transparent through its own root takes no click, not even the person's.
    const root = `document.documentElement.style`;
    await page.evaluate(`${root}.setProperty("opacity", "0.05", "important")`);
    await page.waitOverlay("Allow off while faded", (o) => !!o?.disabled.includes("allow"));
    const box = await page.overlayBox({ action: "allow" });
    await page.clickAt(Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2));
    await page.evaluate(`${root}.removeProperty("opacity")`);
    // The person's Deny decides: had any click above counted, the call would have clicked Pay now.
    await answer(page, "deny");
    await denied(clicking, "denied", "person");
    expect(await page.evaluate("clicks")).toEqual([]);
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("an Allow the page kept covered and shows under the person's pointer takes no click at once", async () => {
    const { s, page, snap } = await onFixture();
    await page.cover();
    const clicking = run(s, ["click", refIn(snap, "Pay now")]);
    await asking(page, "click button 'Pay now'");
    // The lure waits (on its own clock) until an Allow armed from the moment it was built would take clicks.
    await page.evaluate("new Promise((resolve) => setTimeout(() => resolve(true), 1000))");
    await page.lureClicks("allow", 300);
    // Not seen long enough: the clicks did nothing and the panel still asks; the person's Deny decides.
    await answer(page, "deny");
    await denied(clicking, "denied", "person");
    expect(await page.evaluate("clicks")).toEqual([]);
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("a page that focuses the overlay's host and lures Tab, Tab, Enter presses nothing", async () => {
    const p = await popup();
    // No pill (only the panel's buttons take focus) and no takeover by the person's keys on the page: what is left
    // to decide is the panel.
    await p.evaluate(`chrome.storage.local.set({ show_hints: false, auto_takeover: false })`);
    try {
      const { s, page, snap } = await onFixture();
      await page.waitOverlay("no pill", (o) => !o?.pill);
      const clicking = run(s, ["click", refIn(snap, "Pay now")]);
      await asking(page, "click button 'Pay now'");
      await page.waitOverlay("Allow armed", (o) => !!o?.buttons.includes("allow") && !o.disabled.includes("allow"));
      // The page takes its own controls out of the tab order and focuses the host: Tab, Tab would reach Allow.
      await page.evaluate(`(() => {
        for (const el of document.querySelectorAll("input, button")) el.tabIndex = -1;
        const host = document.querySelector("bsk-overlay");
        host.tabIndex = 0;
        host.focus();
        return true;
      })()`);
      expect(await page.evaluate(`document.activeElement === document.querySelector("bsk-overlay")`)).toBe(false);
      for (const key of ["Tab", "Tab", "Enter"] as const) await page.press(key);
      await answer(page, "deny");
      await denied(clicking, "denied", "person");
      expect(await page.evaluate("clicks")).toEqual([]);
      page.close();
      await w.ok(["session", "stop", s]);
    } finally {
      await p.evaluate(`chrome.storage.local.set({ show_hints: true, auto_takeover: true })`);
    }
  });

  test("a page that navigates during the wait ends it as denied", async () => {
    const { s, page, snap } = await onFixture();
    const clicking = run(s, ["click", refIn(snap, "Pay now")]);
    await asking(page, "click button 'Pay now'");
    await page.evaluate(`history.pushState({}, "", location.pathname + "?moved")`);
    const err = await denied(clicking, "navigated", "browser");
    expect(err.message).toContain("page changed");
    expect(await page.evaluate("clicks")).toEqual([]);
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("no answer within the call's time: approval_denied (timed out), recorded so", async () => {
    const { s, page, snap } = await onFixture();
    const clicking = run(s, ["click", refIn(snap, "Pay now"), "--timeout", "3s"]);
    await asking(page, "click button 'Pay now'");
    await denied(clicking, "timed_out", "timeout");
    await page.waitOverlay("the panel gone", (o) => !o?.buttons.includes("allow"));
    expect(await page.evaluate("clicks")).toEqual([]);
    expect(await lastOp(s)).toMatchObject({ state: "not_executed", approval: { decision: "timed_out", by: "timeout" } });
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("Take over during the wait ends it: user_aborted, the panel gone, nothing done", async () => {
    const { s, page, snap } = await onFixture();
    const clicking = run(s, ["click", refIn(snap, "Pay now")]);
    await asking(page, "click button 'Pay now'");
    await page.clickOverlay("takeover");
    const got = await clicking;
    // The daemon cuts the call off at the takeover without waiting for the browser's word, so it says `unknown`;
    // the page shows nothing was done.
    expect(got.json?.error).toMatchObject({ code: "user_aborted", data: { reason: "taken_over" } });
    await page.waitOverlay("the panel gone", (o) => !o?.buttons.includes("allow"));
    expect(await page.evaluate("clicks")).toEqual([]);
    page.close();
    await w.ok(["session", "stop", s]);
  });

  test("the tab closing during the wait: approval_denied (tab closed)", async () => {
    const { s, page, snap } = await onFixture();
    const clicking = run(s, ["click", refIn(snap, "Pay now")]);
    await asking(page, "click button 'Pay now'");
    await page.closeTab();
    await denied(clicking, "tab_closed", "browser");
    // It was the Agent Window's only tab: the window closed with it, and the session ended.
  });
});

describe("the worker's copy of the list", () => {
  test("a site listed while the worker holds an empty list is asked from the next call; unlisted, it is not", async () => {
    await setList([]);
    const { s, page, snap } = await onFixture();
    // The worker now holds the empty list (and looks at no tab for it).
    const first = await run(s, ["click", refIn(snap, "Other"), "--timeout", "5s"]);
    expect(first.code, first.stdout).toBe(0);
    expect(first.json.result.approval).toBeUndefined();

    await setList([origin()]);
    const clicking = run(s, ["click", refIn(snap, "Pay now")]);
    await asking(page, "click button 'Pay now'");
    await answer(page, "deny");
    await denied(clicking, "denied", "person");
    expect(await page.evaluate("clicks")).toEqual(["other"]);

    await setList([]);
    const last = await run(s, ["click", refIn(snap, "Pay now"), "--timeout", "5s"]);
    expect(last.code, last.stdout).toBe(0);
    expect(last.json.result.approval).toBeUndefined();
    expect(await page.evaluate("clicks")).toEqual(["other", "pay"]);
    page.close();
    await w.ok(["session", "stop", s]);
  });
});

describe("session start --confirm-writes", () => {
  test("asks on a site nobody listed; the same site in another session is not asked", async () => {
    await setList([]);
    const plain = await onFixture();
    const r = await run(plain.s, ["click", refIn(plain.snap, "Other"), "--timeout", "5s"]);
    expect(r.code).toBe(0);
    expect(r.json.result.approval).toBeUndefined();
    plain.page.close();
    await w.ok(["session", "stop", plain.s]);

    const { s, page, snap } = await onFixture(["--confirm-writes"]);
    expect((await w.ok(["session", "list", "--session", s])).sessions[0].confirm_writes).toBe(true);
    const clicking = run(s, ["click", refIn(snap, "Pay now")]);
    const look = await asking(page, "click button 'Pay now'");
    expect(look!.panelText).toContain("This session asks before every change");
    await answer(page, "allow");
    const done = await clicking;
    expect(done.code, done.stdout).toBe(0);
    expect(done.json.result.approval).toMatchObject({ decision: "allowed", cause: "confirm_writes" });
    expect(await page.evaluate("clicks")).toEqual(["pay"]);
    page.close();
    await w.ok(["session", "stop", s]);
  });
});

describe("a listed site framed by a page nobody listed", () => {
  const bank = () => `http://localhost:${new URL(w.fixtures.url("/")).port}`;

  /** A session on the unlisted page (127.0.0.1) whose iframe is the listed site (localhost), and the person's view. */
  async function framed(): Promise<{ s: string; page: PersonPage; snap: string }> {
    const s = await w.startSession();
    const m = ++marker;
    await w.ok(["navigate", w.fixtures.url(`/approval-framed.html?m=${m}`), "--session", s]);
    const page = await PersonPage.find(w.browser.cdpPort!, `approval-framed.html?m=${m}`);
    let snap = "";
    await until("the framed site's controls in the snapshot", async () => {
      snap = (await w.ok(["snapshot", "--session", s])).text as string;
      return snap.includes("Pay now") && snap.includes("Send");
    });
    return { s, page, snap };
  }

  test("input into the listed frame waits for Allow, whatever way it goes in; denied, the site saw nothing", async () => {
    await setList([bank()]);
    const { s, page, snap } = await framed();
    const frameRef = refIn(snap, "Bank");
    // Every way in: a ref inside the frame (click, fill), a script in the frame or in the page around it, a point.
    const box = await page.evaluate(`JSON.stringify(document.getElementById("bank").getBoundingClientRect())`);
    const { left, top } = JSON.parse(box) as { left: number; top: number };
    const attempts: [string[], string][] = [
      [["click", refIn(snap, "Pay now")], "click button 'Pay now'"],
      [["fill", refIn(snap, "Amount"), "9999"], "fill textbox 'Amount'"],
      [["evaluate", "document.getElementById('send').click()", "--frame", frameRef], "run a script in the page"],
      [["evaluate", "document.getElementById('bank').focus()"], "run a script in the page"],
      [["click", "--x", String(Math.round(left + 20)), "--y", String(Math.round(top + 20))], "click"],
      [["type", "9999"], "type 4 characters"],
    ];
    for (const [args, text] of attempts) {
      const r = run(s, args);
      const look = await asking(page, text);
      expect(look!.panelText).toContain(bank());
      await answer(page, "deny");
      const err = await denied(r, "denied", "person");
      expect(err.data.approval).toMatchObject({ cause: "ask_first_site", origin: bank() });
      await page.waitOverlay("the panel gone", (o) => !o?.buttons.includes("allow"));
    }
    expect(await page.evaluate("framed")).toEqual([]);

    // Allowed, the click lands in the frame; the page's own button, outside the listed frame, is asked too (the tab
    // holds the listed site, and any frame of a page can take its input).
    const clicking = run(s, ["click", refIn(snap, "Pay now")]);
    await asking(page, "click button 'Pay now'");
    await answer(page, "allow");
    const done = await clicking;
    expect(done.code, done.stdout).toBe(0);
    expect(done.json.result.approval).toMatchObject({ decision: "allowed", origin: bank() });
    await page.waitFor(`framed.length === 1`);
    expect(await page.evaluate("framed")).toEqual(["pay"]);

    // Reads are still not asked, and with the listed site off the list nothing is.
    await w.ok(["snapshot", "--session", s, "--timeout", "5s"]);
    await setList([]);
    const plain = await run(s, ["click", refIn(snap, "Local"), "--timeout", "5s"]);
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.json.result.approval).toBeUndefined();
    page.close();
    await w.ok(["session", "stop", s]);
  });
});

describe("--confirm-writes on a page that cannot show the panel", () => {
  test("about:blank: a script or input is refused (approval_required), nothing runs; navigating away is not asked", async () => {
    await setList([]);
    const s = await w.startSession(["--confirm-writes"]);
    const target = w.fixtures.url(`/approval.html?m=${++marker}&by=script`);
    for (const args of [
      ["evaluate", `location.href = ${JSON.stringify(target)}`],
      ["evaluate", "document.title"],
      ["click", "--x", "10", "--y", "10"],
      ["press", "Enter"],
    ]) {
      const r = await run(s, [...args, "--timeout", "5s"]);
      expect(r.code, r.stdout).toBe(13);
      expect(r.json.error).toMatchObject({
        code: "approval_required",
        data: { effect_state: "none", reason: "no_panel_here", cause: "confirm_writes" },
      });
      expect(r.json.error.hint).toContain("navigate to the site first");
    }
    expect((await w.ok(["tab", "list", "--session", s])).tabs.map((t: any) => t.url)).toEqual(["about:blank"]);
    // A navigation away is not asked (nothing of a page is in the tab); on the site the person is asked.
    const url = w.fixtures.url(`/approval.html?m=${++marker}`);
    await w.ok(["navigate", url, "--session", s, "--timeout", "10s"]);
    const page = await PersonPage.find(w.browser.cdpPort!, url.slice(url.indexOf("approval.html")));
    const r = run(s, ["evaluate", "document.title"]);
    await asking(page, "run a script in the page");
    await answer(page, "allow");
    const done = await r;
    expect(done.code, done.stdout).toBe(0);
    expect(done.json.result.approval).toMatchObject({ decision: "allowed", cause: "confirm_writes" });
    page.close();
    await w.ok(["session", "stop", s]);
  });
});

describe("requests to an ask-first site from a page of another site", () => {
  const bank = () => new URL(w.fixtures.crossUrl("/")).origin;
  const blockedEvents = async (s: string) =>
    ((await w.ok(["events", "--session", s, "--type", "origin.blocked"])).events as any[]).filter((e) => e.data?.cause === "ask_first");

  test("fetch, sendBeacon and a form's POST with the person's cookies are blocked; a GET is not; the site's own POST is", async () => {
    await setList([bank()]);
    const { s, page } = await onFixture();
    // A script on the unlisted page (nothing of the listed site in it, so the call itself is not asked) posts there.
    const posting = await run(s, [
      "evaluate",
      `fetch(${JSON.stringify(w.fixtures.crossUrl("/paid-fetch"))}, { method: "POST", credentials: "include", mode: "no-cors", body: "amt=9999" }).then(() => "sent", (e) => "failed: " + e)`,
    ]);
    expect(posting.code, posting.stdout).toBe(13);
    expect(posting.json.error).toMatchObject({
      code: "approval_required",
      data: { reason: "request_to_ask_first_site", method: "POST", url: w.fixtures.crossUrl("/paid-fetch") },
    });
    // A beacon (or a form) leaves after the script's answer: the call may end before the block is known, so the
    // event stream is where it always shows (and the call fails with it when it is known in time).
    const beacon = await run(s, ["evaluate", `navigator.sendBeacon(${JSON.stringify(w.fixtures.crossUrl("/paid-beacon"))}, "amt=9999")`]);
    expect([0, 13]).toContain(beacon.code);
    await until("the beacon's block in the events", async () => (await blockedEvents(s)).some((e) => e.data.url.endsWith("/paid-beacon")));
    const form = `(() => { const f = document.createElement("form"); f.method = "POST";
      f.action = ${JSON.stringify(w.fixtures.crossUrl("/paid-form"))}; f.innerHTML = '<input name="amt" value="9999">';
      document.body.append(f); f.submit(); return "submitted"; })()`;
    expect([0, 13]).toContain((await run(s, ["evaluate", form])).code);
    await until("the form's block in the events", async () =>
      (await blockedEvents(s)).some((e) => e.data.url.endsWith("/paid-form") && e.data.kind === "navigation"),
    );
    expect([w.fixtures.hits("/paid-fetch"), w.fixtures.hits("/paid-beacon"), w.fixtures.hits("/paid-form")]).toEqual([0, 0, 0]);
    expect((await blockedEvents(s)).every((e) => e.data.method === "POST")).toBe(true);

    // The blocked form left the tab on the browser's error page for that site's address: back to the unlisted page.
    await w.ok(["navigate", w.fixtures.url(`/approval.html?m=${++marker}`), "--session", s]);
    // Reading is not acting: a GET (even one with side effects on a careless site) goes through, as documented.
    await w.ok([
      "evaluate",
      `fetch(${JSON.stringify(w.fixtures.crossUrl("/paid-get?amt=1"))}, { mode: "no-cors" }).then(() => "ok")`,
      "--session",
      s,
    ]);
    expect(w.fixtures.hits("/paid-get")).toBe(1);
    page.close();

    // The listed site's own page posts to itself once the person allowed the call.
    const m = ++marker;
    await w.ok(["navigate", w.fixtures.crossUrl(`/approval.html?m=${m}`), "--session", s]);
    const own = await PersonPage.find(w.browser.cdpPort!, `approval.html?m=${m}`);
    const r = run(s, ["evaluate", `fetch("/own-post", { method: "POST", body: "x" }).then((r) => r.status)`]);
    await asking(own, "run a script in the page");
    await answer(own, "allow");
    expect((await r).code).toBe(0);
    expect(w.fixtures.hits("/own-post")).toBe(1);
    own.close();
    await setList([]);
    await w.ok(["session", "stop", s]);
  });
});
