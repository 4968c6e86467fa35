/**
 * storage.local holds the person's switches, the ask-first list, the remote grant and the test hooks; it is kept to
 * bsk's own pages and worker (extension/src/session/storage-lock.ts), and so is storage.sync, which bsk does not use.
 * Our content scripts run in every page's renderer, so a renderer a hostile page has taken over has their rights: here
 * that is code run in bsk's content-script world, which can neither read nor change either area. The content scripts learn whether a session is live from the
 * keep-alive script instead, registered only while one is; a tab that joins a session later is told.
 */
import { describe, expect, test } from "bun:test";
import { evaluateInContentScript, evaluateInWorker } from "./devtools.ts";
import { until, useWorld, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

let w: World;

// The person's own tab, open before any session.
useWorld({ browserUrls: (f) => [f.url("/borrow-form.html?before")] }, (world) => (w = world));

const inWorld = (marker: string, expression: string, frame?: string) =>
  evaluateInContentScript(w.browser.cdpPort!, marker, expression, frame);
const local = (): Promise<Record<string, unknown>> =>
  evaluateInWorker(w.browser.cdpPort!, "chrome.storage.local.get(null)") as Promise<Record<string, unknown>>;
const registered = async (): Promise<boolean> =>
  (
    (await evaluateInWorker(
      w.browser.cdpPort!,
      "chrome.scripting.getRegisteredContentScripts().then((s) => s.map((x) => x.id))",
    )) as string[]
  ).includes("bsk-keepalive");
const refused = { error: expect.stringContaining("Access to storage is not allowed from this context") };

async function sessionState(s: string): Promise<string | undefined> {
  return (await w.ok(["session", "list"])).sessions.find((x: any) => x.session_id === s)?.state;
}

describe("storage.local and storage.sync are closed to the content-script world", () => {
  test("in the person's tab and in a session's: nothing read, and the switches, the ask-first list and the test hooks stay as they were", async () => {
    await w.person.asExtension(`chrome.storage.local.set({ confirm_borrow: true, ask_first_origins: ["https://bank.example"] })`);
    const s = await w.startSession();
    await w.ok(["navigate", w.fixtures.url("/borrow-form.html?session"), "--session", s]);
    for (const page of ["/borrow-form.html?before", "/borrow-form.html?session"]) {
      expect(await inWorld(page, "chrome.storage.local.get(null)")).toEqual(refused);
      expect(await inWorld(page, `chrome.storage.local.get("remote_grant")`)).toEqual(refused);
      expect(
        await inWorld(page, `chrome.storage.local.set({ confirm_borrow: false, allow_file_urls: true, bsk_test_blind: true })`),
      ).toEqual(refused);
      expect(await inWorld(page, `chrome.storage.local.remove("ask_first_origins")`)).toEqual(refused);
      expect(await inWorld(page, "chrome.storage.local.clear()")).toEqual(refused);
      // storage.sync holds nothing of bsk's, and takes nothing from there either.
      expect(await inWorld(page, "chrome.storage.sync.get(null)")).toEqual(refused);
      expect(await inWorld(page, `chrome.storage.sync.set({ confirm_borrow: false, planted: "x".repeat(8000) })`)).toEqual(refused);
      expect(await inWorld(page, "chrome.storage.sync.clear()")).toEqual(refused);
    }
    expect(await evaluateInWorker(w.browser.cdpPort!, "chrome.storage.sync.get(null)")).toEqual({});
    const now = await local();
    expect(now).toMatchObject({ confirm_borrow: true, ask_first_origins: ["https://bank.example"] });
    expect(now.allow_file_urls).toBeUndefined();
    expect(now.bsk_test_blind).toBeUndefined();
    // No flag of ours is left there for content scripts to read.
    expect(Object.keys(now).filter((k) => k.endsWith("_live"))).toEqual([]);
    await w.person.asExtension(`chrome.storage.local.remove("ask_first_origins")`);
    await w.ok(["session", "stop", s]);
  });
});

describe("whether a session is live, without storage.local", () => {
  test("the keep-alive script is registered only while a session is live; pages loaded meanwhile know it, in every frame", async () => {
    await until("no keep-alive script while no session is live", async () => !(await registered()));
    expect(await inWorld("/borrow-form.html?before", "globalThis.__bskLive ?? null")).toBeNull();

    const s = await w.startSession();
    await until("the keep-alive script registered", registered);
    await w.ok(["navigate", w.fixtures.url("/act-frames.html?live"), "--session", s]);
    expect(await inWorld("/act-frames.html?live", "globalThis.__bskLive ?? null")).toBe(true);
    expect(await inWorld("/act-frames.html?live", "globalThis.__bskLive ?? null", "/echo-title/")).toBe(true);
    // The person's tab loaded before: nothing ran there, and nothing tells it (it is not the session's).
    expect(await inWorld("/borrow-form.html?before", "[globalThis.__bskLive ?? null, globalThis.__bskKeepalive ?? null]")).toEqual([
      null,
      null,
    ]);

    await w.ok(["session", "stop", s]);
    await until("the keep-alive script gone with the last session", async () => !(await registered()));
  });

  test("a tab open before any session, then borrowed: it gets the keep-alive script, and the person's keys there take the session over", async () => {
    await w.person.asExtension(`chrome.storage.local.set({ confirm_borrow: false })`);
    const s = await w.startSession();
    const [tabId] = (await w.person.asExtension(
      `chrome.tabs.query({}).then((ts) => ts.filter((t) => (t.url || "").includes("/borrow-form.html?before")).map((t) => t.id))`,
    )) as number[];
    await w.ok(["tab", "borrow", String(tabId), "--session", s]);
    await until(
      "the keep-alive script injected into the borrowed tab",
      async () => (await inWorld("/borrow-form.html?before", "globalThis.__bskKeepalive ?? null")) === true,
    );

    const page = await PersonPage.find(w.browser.cdpPort!, "/borrow-form.html?before");
    try {
      await page.waitOverlay("the pill", (o) => !!o?.pill);
      await page.send("Page.bringToFront");
      await page.evaluate(`document.getElementById("to").focus()`);
      await page.typeKeys("me");
      await until("taken over by the person's keys", async () => (await sessionState(s)) === "taken_over");
    } finally {
      page.close();
      await w.person.asExtension(`chrome.storage.local.set({ confirm_borrow: true })`);
    }
    await w.ok(["session", "stop", s]);
  });
});
