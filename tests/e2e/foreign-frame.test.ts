/**
 * Another extension's frame in a page (tests/fixtures/foreign-extension, a stand-in for a password manager's inline
 * menu): while it shows, the browser refuses every chrome.debugger call on the tab and ends bsk's attachment. bsk says
 * so plainly (nothing done, what to do), and the tab is bsk's again, snapshot, click and help marks, once it is gone.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, refIn, until, useWorld, type World } from "./harness.ts";
import { marksInFrame, uploaderRefs } from "./files-frame.ts";
import { PersonPage } from "./person-page.ts";

let w: World;
let s: string;
let marker = 0;

useWorld(
  { session: true, extraExtensions: [join(ROOT, "tests/fixtures/foreign-extension")] },
  (world, session) => ([w, s] = [world, session]),
);

const run = (args: string[]) => w.bsk([...args, "--session", s, "--json"]);

async function open(path: string): Promise<PersonPage> {
  const unique = `${path}?m=${++marker}`;
  await w.ok(["navigate", w.fixtures.url(unique), "--session", s]);
  return PersonPage.find(w.browser.cdpPort!, unique);
}

/** Whether the browser holds the menu's frame (its DevTools lists it as a target of its own). */
async function menuShown(): Promise<boolean> {
  const list = (await (await fetch(`http://127.0.0.1:${w.browser.cdpPort}/json/list`)).json()) as { url: string }[];
  return list.some((t) => t.url.startsWith("chrome-extension://") && t.url.endsWith("/menu.html"));
}

/** The menu opens, as when the person focuses a sign-in field. */
async function openMenu(page: PersonPage): Promise<void> {
  await page.evaluate(`document.dispatchEvent(new Event("foreign-menu")); true`);
  await until("the menu's frame", menuShown);
}

/** The person closes the menu (if it is open). */
async function closeMenu(page: PersonPage): Promise<void> {
  await page.evaluate(`document.getElementById("foreign-extension-menu")?.remove(); true`);
  await until("the menu's frame gone", async () => !(await menuShown()));
}

/** Runs `body` on a fresh page; the menu is closed and the page let go afterwards, also when it failed. */
async function onPage(path: string, body: (page: PersonPage) => Promise<void>): Promise<void> {
  const page = await open(path);
  try {
    await body(page);
  } finally {
    await closeMenu(page);
    page.close();
  }
}

describe("another extension's frame in the page", () => {
  test("while it shows, snapshot and click are refused with what to do and nothing is clicked; afterwards both work", () =>
    onPage("/overlay.html", async (page) => {
      await w.ok(["snapshot", "--session", s]);

      await openMenu(page);
      const refused = (await run(["snapshot"])).json?.error;
      expect(refused).toMatchObject({ code: "cdp_failed", data: { reason: "extension_frame" } });
      expect(refused.hint).toContain("another extension");
      const click = await run(["click", "#probe"]);
      expect(click.json?.error).toMatchObject({ code: "cdp_failed", data: { reason: "extension_frame" } });
      expect(await page.evaluate("clicks")).toEqual([]);

      await closeMenu(page);
      expect((await w.ok(["snapshot", "--session", s])).text).toContain('button "Probe"');
      await w.ok(["click", "#probe", "--session", s]);
      expect(await page.evaluate("clicks")).toEqual(["probe"]);
    }));

  test("a menu that opens while navigate waits for the load: the reply says an extension's frame ended the debugging, not that the tab went away", async () => {
    const key = `menu-at-load-${++marker}`;
    const path = `/held-load.html?foreign-frame&key=${key}`;
    const navigating = run(["navigate", w.fixtures.url(path)]);
    let page: PersonPage | undefined;
    try {
      await w.fixtures.seen(`/hold/${key}`);
      const err = (await navigating).json?.error;
      expect(err).toMatchObject({ code: "cdp_failed", data: { reason: "extension_frame" } });
      expect(err.message).not.toContain("went away");
      expect(err.message).toContain("another extension's page");
      expect(err.hint).toContain("the next call attaches again");
      page = await PersonPage.find(w.browser.cdpPort!, path);
      await closeMenu(page);
      expect((await w.ok(["snapshot", "--session", s])).text).toContain("Held load");
    } finally {
      w.fixtures.release(key);
      if (page) await closeMenu(page);
      page?.close();
    }
  });

  test("refs into a cross-site frame taken before the menu came and went still act on the same document", () =>
    onPage("/files-frame.html", async (page) => {
      await uploaderRefs(w, s);
      const nothing = refIn((await w.ok(["snapshot", "--session", s])).text, "Does nothing");
      // The menu ends bsk's attachment: the frame's session is a new one afterwards, its document the same.
      await openMenu(page);
      await closeMenu(page);
      const r = await run(["click", nothing]);
      expect(r.json?.error).toBeUndefined();
      expect(r.json?.result).toMatchObject({ target: { ref: nothing, name: "Does nothing" } });
    }));

  test("a help request's marks in a cross-site frame are all taken off when the menu came and went while the person helped", () =>
    onPage("/files-frame.html", async (page) => {
      const { frame, button } = await uploaderRefs(w, s);
      const asking = run(["request-help", "--prompt", "Pick the file", "--target", button, "--timeout", "20s"]);
      await page.waitOverlay("the frame highlighted", (o) => !!o?.panel && o.marks === 1);
      // The menu ends bsk's attachment: the session of the frame bsk marked is gone, the frame holds a new one.
      await openMenu(page);
      await closeMenu(page);
      await page.clickOverlay("done");
      expect((await asking).json?.result).toMatchObject({ outcome: "continued", targets: [{ target: button, found: true }] });
      await page.waitOverlay("no help panel", (o) => !o?.panel);
      expect(await page.evaluate(`document.querySelectorAll("[data-bsk-help-target]").length`)).toBe(0);
      expect(await marksInFrame(w, s, frame)).toBe(0);
    }));
});
