/**
 * Actions settle without waiting a frame once the DOM has changed (page/effects.ts): what the same input started is
 * still reported — a navigation, a new tab, a same-document navigation — and a control whose state follows its first
 * DOM change (a batched update) is read back as it ends up, in the settle's page call. Type and press on a target check and focus it in one
 * page call. Real Chromium, the built extension, dist/bsk; act-changes.html.
 */
import { describe, expect, test } from "bun:test";
import { useWorld, type World } from "./harness.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

const ok = (args: string[]) => w.ok([...args, "--session", s]);
const page = () => ok(["navigate", w.fixtures.url("/act-changes.html")]);
const js = async (expression: string) => (await ok(["evaluate", expression])).value;

describe("a DOM change and what the same input started", () => {
  test("a navigation started with the change is the effect", async () => {
    await page();
    const r = await ok(["click", "#go"]);
    expect(r.effect).toEqual({
      kind: "navigated",
      dom_changed: true,
      navigation: { url: w.fixtures.url("/echo-title/Went"), status: 200 },
    });
  });

  test("a tab opened with the change is the effect", async () => {
    await page();
    const r = await ok(["click", "#open"]);
    expect(r.effect).toMatchObject({ kind: "new_tab", dom_changed: true });
    expect(r.effect.new_tab_ids).toHaveLength(1);
    await ok(["tab", "close", String(r.effect.new_tab_ids[0])]);
  });

  test("a same-document navigation with the change is the effect", async () => {
    await page();
    const r = await ok(["click", "#spa"]);
    expect(r.effect).toMatchObject({ kind: "navigated", dom_changed: true });
    expect(r.effect.navigation.url).toEndWith("#pushed");
  });
});

describe("state read back", () => {
  test("a switch whose state follows its first DOM change is checked, not refused", async () => {
    await page();
    const r = await ok(["check", "#consent"]);
    expect(r).toMatchObject({ checked: true, target: { role: "switch" }, effect: { kind: "dom_changed" } });
    expect(await js(`document.getElementById("consent").getAttribute("aria-checked")`)).toBe("true");
  });

  test("type and press on a target focus it first", async () => {
    await page();
    await ok(["evaluate", "document.getElementById('go').focus(); 1"]);
    expect((await ok(["type", "42", "--target", "#code"])).target).toMatchObject({ role: "textbox", name: "Code" });
    expect(await js(`document.getElementById("code").value`)).toBe("42");
    await ok(["evaluate", "document.getElementById('go').focus(); 1"]);
    expect((await ok(["press", "Enter", "--target", "#code"])).effect.kind).toBe("dom_changed");
    expect(await js(`document.getElementById("status").textContent`)).toBe("entered");
  });
});
