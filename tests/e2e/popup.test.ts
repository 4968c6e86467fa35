/**
 * The popup, opened as a page (chrome-extension://<id>/popup.html) and used by the person through the browser's
 * DevTools port: what it shows, its switches (persisted in chrome.storage.local, read back through the page),
 * the editable label, Take over / Resume / Stop per session, and screenshots in English and Chinese written to
 * .tmp/ for a person to look at.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { ROOT, startWorld, until, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

let w: World;
let s: string;
let popup: PersonPage;
let opened = 0;

beforeAll(async () => {
  w = await startWorld();
  s = await w.startSession(["--name", "compare prices"]);
  popup = await openPopup();
}, 60_000);

afterAll(async () => {
  popup?.close();
  await w?.stop();
});

async function openPopup(query = ""): Promise<PersonPage> {
  const url = `chrome-extension://${EXTENSION_ID}/popup.html?n=${++opened}${query}`;
  await w.person.openTab(url);
  const page = await PersonPage.find(w.browser.cdpPort!, `popup.html?n=${opened}`);
  await page.waitFor(`document.querySelector(".state")?.textContent.length > 0 && document.querySelector("li[data-session]") !== null`);
  return page;
}

const text = (page: PersonPage, selector: string) =>
  page.evaluate(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`);
const stored = (key: string) => popup.evaluate(`chrome.storage.local.get(${JSON.stringify(key)}).then((v) => v[${JSON.stringify(key)}])`);
const checked = (name: string) => popup.evaluate(`document.querySelector('input[name="${name}"]').checked`);

async function state(id: string): Promise<any> {
  return (await w.ok(["session", "list"])).sessions.find((x: any) => x.session_id === id);
}

describe("popup", () => {
  test("shows the connection, versions, instance, label, port and the live session", async () => {
    const status = await w.ok(["status"]);
    const [browser] = (await w.ok(["browsers"])).browsers;
    await popup.waitFor(`document.querySelector(".state").textContent === "Connected"`);
    const dd = await popup.evaluate(`[...document.querySelectorAll("dd")].map((d) => d.textContent)`);
    expect(dd).toEqual([browser.extension_version, status.daemon.version, status.daemon.protocol_version, browser.instance_id]);
    expect(await popup.evaluate(`document.querySelector("input[name=label]").value`)).toBe("e2e");
    expect(await popup.evaluate(`document.querySelector("input[name=port]").value`)).toBe(String(w.port));
    const row = `li[data-session="${s}"]`;
    expect(await text(popup, `${row} .name`)).toBe("compare prices");
    expect(await popup.evaluate(`[...document.querySelectorAll('${row} button')].map((b) => b.dataset.action)`)).toEqual([
      "takeover",
      "stop",
    ]);
  });

  test("switches start on, toggle, persist in chrome.storage.local and survive reopening", async () => {
    for (const name of ["confirm_borrow", "allow_help", "show_hints", "auto_takeover"]) {
      expect(await checked(name)).toBe(true);
      await popup.clickSelector(`input[name="${name}"]`);
      await popup.waitFor(`chrome.storage.local.get("${name}").then((v) => v["${name}"] === false)`);
      expect(await stored(name)).toBe(false);
    }
    const again = await openPopup();
    for (const name of ["confirm_borrow", "allow_help", "show_hints", "auto_takeover"]) {
      expect(await again.evaluate(`document.querySelector('input[name="${name}"]').checked`)).toBe(false);
      await again.clickSelector(`input[name="${name}"]`);
      await again.waitFor(`chrome.storage.local.get("${name}").then((v) => v["${name}"] === true)`);
    }
    await again.closeTab();
    await popup.waitFor(
      `["confirm_borrow", "allow_help", "show_hints"].every((n) => document.querySelector(\`input[name="\${n}"]\`).checked)`,
    );
  });

  test("the local-files switch starts off and persists when the person turns it on", async () => {
    expect(await checked("allow_file_urls")).toBe(false);
    expect(await stored("allow_file_urls")).toBeUndefined();
    await popup.clickSelector('input[name="allow_file_urls"]');
    await popup.waitFor(`chrome.storage.local.get("allow_file_urls").then((v) => v.allow_file_urls === true)`);
    const again = await openPopup();
    expect(await again.evaluate(`document.querySelector('input[name="allow_file_urls"]').checked`)).toBe(true);
    await again.clickSelector('input[name="allow_file_urls"]');
    await again.waitFor(`chrome.storage.local.get("allow_file_urls").then((v) => v.allow_file_urls === false)`);
    await again.closeTab();
  });

  test("the label is editable: the browser reconnects under the new name", async () => {
    await popup.clickSelector("input[name=label]");
    await popup.evaluate(`document.querySelector("input[name=label]").select()`);
    await popup.send("Input.insertText", { text: "work laptop" });
    await popup.clickSelector("form:has(input[name=label]) button");
    await until("the new label in bsk browsers", async () => (await w.ok(["browsers"])).browsers[0]?.label === "work laptop");
    expect(await stored("label")).toBe("work laptop");
  });

  test("Take over, Resume and Stop per session", async () => {
    const row = `li[data-session="${s}"]`;
    await popup.clickSelector(`${row} button[data-action="takeover"]`);
    await until("taken over", async () => (await state(s)).state === "taken_over");
    await popup.waitFor(`document.querySelector('${row} .taken') !== null`);
    await popup.clickSelector(`${row} button[data-action="resume"]`);
    await until("live", async () => (await state(s)).state === "live");
    await popup.clickSelector(`${row} button[data-action="stop"]`);
    await until("stopped", async () => (await state(s)).state === "ended");
    expect((await state(s)).end_reason).toBe("stopped_by_person");
    await popup.waitFor(`document.querySelector("li[data-session]") === null`);
    s = await w.startSession(["--name", "compare prices"]);
  });

  test("screenshots in English and Simplified Chinese (.tmp/popup-en.png, .tmp/popup-zh-CN.png)", async () => {
    mkdirSync(join(ROOT, ".tmp"), { recursive: true });
    for (const [lang, marker] of [
      ["en", "Sessions"],
      ["zh-CN", "会话"],
    ] as const) {
      const page = await openPopup(`&lang=${lang}`);
      expect(await page.evaluate(`document.body.textContent`)).toContain(marker);
      const box = await page.evaluate(
        `(() => { const r = document.querySelector("main").getBoundingClientRect(); return { x: 0, y: 0, width: Math.ceil(r.right), height: Math.ceil(r.bottom) }; })()`,
      );
      const { data } = await page.send("Page.captureScreenshot", { format: "png", clip: { ...box, scale: 2 } });
      writeFileSync(join(ROOT, `.tmp/popup-${lang}.png`), Buffer.from(data, "base64"));
      await page.closeTab();
    }
  });
});
