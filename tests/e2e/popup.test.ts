/**
 * The popup, opened as a page (chrome-extension://<id>/popup.html) and used by the person through the browser's
 * DevTools port: what it shows, its switches (persisted in chrome.storage.local, read back through the page),
 * the editable label, Take over / Resume / Stop per session, and its states (connected with a session, daemon down,
 * not paired) in English and in a browser whose language is Simplified Chinese (`--lang=zh-CN`), each with a
 * screenshot in .tmp/ (popup-<lang>-<state>.png) for a person to look at.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
    await popup.evaluate(`document.querySelector("details.details").open = true`);
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

  test("nothing moves between the person's press and release: a session starting meanwhile waits for the click", async () => {
    await popup.evaluate(`chrome.storage.local.set({ ask_first_origins: ["https://steady.example"] }).then(() => 1)`);
    const button = `li[data-origin="https://steady.example"] button[data-action="remove"]`;
    await popup.waitFor(`document.querySelector('${button}') !== null`);
    const box = async () =>
      popup.evaluate(`(() => { const r = document.querySelector('${button}')?.getBoundingClientRect(); return r && [r.x, r.y]; })()`);
    const [x0, y0] = (await box()) as [number, number];
    const at = { x: Math.round(x0 + 5), y: Math.round(y0 + 5), button: "left", clickCount: 1 };
    await popup.send("Page.bringToFront");
    await popup.send("Input.dispatchMouseEvent", { type: "mouseMoved", x: at.x, y: at.y });
    await popup.send("Input.dispatchMouseEvent", { type: "mousePressed", ...at });

    // A session starts while the button is held: its row would go in above the list and push the button down.
    const other = await w.startSession(["--name", "meanwhile"]);
    await until("the popup's storage to hold the new session", () =>
      popup.evaluate(`chrome.storage.session.get("sessions").then((v) => ${JSON.stringify(other)} in (v.sessions ?? {}))`),
    );
    await popup.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))`);
    expect(await popup.evaluate(`document.querySelector('li[data-session="${other}"]') === null`)).toBe(true);
    expect(await box()).toEqual([x0, y0]);

    await popup.send("Input.dispatchMouseEvent", { type: "mouseReleased", ...at });
    await popup.waitFor(`document.querySelector('li[data-origin="https://steady.example"]') === null`);
    expect(await stored("ask_first_origins")).toEqual([]);
    // The held refresh runs once the click is through.
    await popup.waitFor(`document.querySelector('li[data-session="${other}"]') !== null`);
    await w.ok(["session", "stop", other]);
  });
});

/** Every string of the English catalog, flattened. */
function catalog(file: string): string[] {
  const out: string[] = [];
  const walk = (o: unknown) => (typeof o === "string" ? out.push(o) : Object.values(o as object).forEach(walk));
  walk(JSON.parse(readFileSync(join(ROOT, "extension/locales", file), "utf8")));
  return out;
}
const words = (texts: string[]) => new Set(texts.flatMap((x) => x.replace(/\{\w+\}/g, " ").match(/[A-Za-z]{2,}/g) ?? []));

/** English words of the popup's catalog in the page that the Chinese catalog does not use itself (commands, bsk). */
async function untranslated(page: PersonPage, lang: string, data: string[]): Promise<string[]> {
  if (lang === "en") return [];
  const english = words(catalog("en.json"));
  const allowed = new Set([...words(catalog("zh_CN.json")), ...words(data)]);
  const shown: string = await page.evaluate(
    `(() => { document.querySelector("details.details").open = true; return document.querySelector("main").innerText; })()`,
  );
  return [...words([shown])].filter((w) => english.has(w) && !allowed.has(w));
}

async function shoot(page: PersonPage, name: string): Promise<void> {
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  const box = await page.evaluate(
    `(() => { const r = document.querySelector("main").getBoundingClientRect(); return { x: 0, y: 0, width: Math.ceil(r.right), height: Math.ceil(r.bottom) }; })()`,
  );
  const { data } = await page.send("Page.captureScreenshot", { format: "png", clip: { ...box, scale: 2 } });
  writeFileSync(join(ROOT, `.tmp/popup-${name}.png`), Buffer.from(data, "base64"));
}

const LANGS = [
  { lang: "en", sessions: "Sessions", down: "bsk daemon start", notPaired: "bsk native install", state: "Connected" },
  { lang: "zh-CN", sessions: "会话", down: "bsk daemon start", notPaired: "bsk native install", state: "已连接" },
] as const;

for (const l of LANGS) {
  describe(`popup states in ${l.lang}`, () => {
    let world: World;
    let page: PersonPage;
    let n = 0;
    const open = async () => {
      page?.close();
      const url = `chrome-extension://${EXTENSION_ID}/popup.html?state=${++n}`;
      await world.person.openTab(url);
      page = await PersonPage.find(world.browser.cdpPort!, `popup.html?state=${n}`);
      await page.waitFor(`document.querySelector(".state")?.textContent.length > 0`);
    };
    const main = () => page.evaluate(`document.querySelector("main").textContent`) as Promise<string>;

    beforeAll(async () => {
      world = await startWorld(l.lang === "en" ? {} : { browserLang: l.lang });
      await world.startSession(["--name", "compare prices"]);
      await open();
    }, 60_000);
    afterAll(async () => {
      page?.close();
      await world?.stop();
    });

    test("connected: sessions and switches first, connection details folded below, no pairing field", async () => {
      await page.waitFor(
        `document.querySelector(".state").textContent === ${JSON.stringify(l.state)} && !!document.querySelector("li[data-session]")`,
      );
      const order: string[] = await page.evaluate(
        `[...document.querySelector("main").children].map((e) => e.tagName.toLowerCase() + (e.className ? "." + e.className : ""))`,
      );
      expect(order.indexOf("section.sessions")).toBeLessThan(order.indexOf("section.switches"));
      expect(order.indexOf("section.switches")).toBeLessThan(order.indexOf("details.details"));
      expect(await page.evaluate(`document.querySelector("details.details").open`)).toBe(false);
      expect(await page.evaluate(`document.querySelector("details.details dl") !== null`)).toBe(true);
      expect(await page.evaluate(`document.getElementById("pairing-code")`)).toBeNull();
      expect(await main()).toContain(l.sessions);
      await shoot(page, `${l.lang}-connected`);
      const status = await world.ok(["status"]);
      const [b] = (await world.ok(["browsers"])).browsers;
      expect(await untranslated(page, l.lang, ["compare prices", status.daemon.key_id, b.instance_id, "e2e"])).toEqual([]);
    });

    test("daemon down: says what to run", async () => {
      await world.bsk(["daemon", "stop"]);
      // The worker keeps trying (connecting, then off again): wait for the off state's words.
      await page.waitFor(`document.querySelector(".hint")?.textContent.includes(${JSON.stringify(l.down)})`, 15_000);
      // Its retries do not make the words under the title (and the rows below them) jump: two attempts come and go.
      await page.evaluate(`(() => {
        const hint = () => document.querySelector(".hint")?.textContent + "|" + document.querySelector("main").className;
        let last = hint();
        window.__flips = [];
        window.__attempts = 0;
        new MutationObserver(() => { const h = hint(); if (h !== last) { window.__flips.push(h); last = h; } })
          .observe(document.querySelector("main"), { subtree: true, childList: true, characterData: true, attributes: true });
        chrome.storage.onChanged.addListener((changes, area) => {
          const state = area === "session" && changes.connection?.newValue?.state;
          if (!state) return;
          window.__state = state;
          if (state === "connecting") window.__attempts++;
        });
        return 1;
      })()`);
      // The second attempt has ended: the worker wrote "off" again after it.
      await page.waitFor(`window.__attempts >= 2 && window.__state === "disconnected"`, 15_000);
      expect(await page.evaluate("window.__flips")).toEqual([]);
      await shoot(page, `${l.lang}-daemon-down`);
      expect(await untranslated(page, l.lang, [])).toEqual([]);
    });

    test("not paired: the next step once, in words, with the code field; no raw browser error", async () => {
      await world.ok(["native", "uninstall", "--profile-dir", join(world.home, "profile")]);
      await page.evaluate(`chrome.runtime.sendMessage({ type: "unpair" })`);
      await page.waitFor(`document.querySelector(".pairing")?.dataset.trust === "not_paired"`);
      const shown = await main();
      expect(shown).toContain(l.notPaired);
      expect(shown.split(l.notPaired).length).toBe(2);
      expect(shown).not.toMatch(/native messaging host|Specified/i);
      expect(await page.evaluate(`document.getElementById("pairing-code") !== null`)).toBe(true);
      await shoot(page, `${l.lang}-not-paired`);
      expect(await untranslated(page, l.lang, [])).toEqual([]);
      if (l.lang !== "en") {
        // A wrong code's refusal is in the page's language too.
        await page.evaluate(
          `(() => { const i = document.getElementById("pairing-code"); i.value = "AAAA"; i.form.requestSubmit(); return true; })()`,
        );
        await page.waitFor(`!!document.querySelector(".pairing-result.error")`);
        expect(await untranslated(page, l.lang, [])).toEqual([]);
      }
    });
  });
}
