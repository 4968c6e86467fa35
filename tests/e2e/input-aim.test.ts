/**
 * Keys land where they were aimed, or the reply says where they went (page/input/aim.ts). Hostile pages move the focus
 * while bsk types: into another site's frame at the first key, to a field of their own at the third, away with the
 * whole document (a navigation) at the third; fill's field hands the focus away as it gets it. Each time bsk stops,
 * at most the key sent while the focus moved goes elsewhere, and the reply is input_diverted or
 * navigated_during_input (effect_state committed), never an `ok` that names the target.
 */
import { describe, expect, test } from "bun:test";
import { useWorld, type World } from "./harness.ts";
import { PersonPage } from "./person-page.ts";

let w: World;
let s: string;
useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

let marker = 0;
const run = (args: string[]) => w.bsk([...args, "--session", s, "--json"]);

/** The aim page in `mode`, and the page as the person's DevTools see it. */
async function aimPage(mode: string): Promise<PersonPage> {
  const m = ++marker;
  await w.ok(["navigate", w.fixtures.url(`/aim.html?mode=${mode}&m=${m}`), "--session", s]);
  const page = await PersonPage.find(w.browser.cdpPort!, `aim.html?mode=${mode}&m=${m}`);
  await page.waitFor(`document.readyState === "complete" && document.getElementById("thief").contentDocument === null`);
  return page;
}

/** Everything the other site's frame reported, once its reports so far have all arrived (they come in order). */
function thiefHeard(page: PersonPage): Promise<string[]> {
  return page.evaluate(`new Promise((resolve) => {
    addEventListener("message", (e) => e.data === "pong" && resolve(thief.filter((t) => t !== "pong")));
    document.getElementById("thief").contentWindow.postMessage("ping", "*");
  })`);
}

async function fails(args: string[], code: string, exit: number): Promise<any> {
  const r = await run(args);
  if (r.json?.ok !== false)
    throw new Error(`expected ${args.join(" ")} to fail with ${code}, got (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  expect(r.json.error.code).toBe(code);
  expect(r.code).toBe(exit);
  expect(r.json.error.data.effect_state).toBe("committed");
  return r.json.error;
}

describe("keys bound to their target", () => {
  test("another site's frame takes the focus at the first key: bsk stops, the frame gets at most that key", async () => {
    const page = await aimPage("frame");
    const err = await fails(["type", "hunter2", "--target", "#pw"], "input_diverted", 14);
    expect(err.data).toMatchObject({ delivered: 0, uncertain: 1, not_sent: 6, total: 7, focus: { frame: true } });
    expect(err.message).toContain("bsk sent no more");
    const heard = await thiefHeard(page);
    expect(heard.filter((h) => h.startsWith("key:")).length).toBeLessThanOrEqual(1);
    expect(heard.filter((h) => h.startsWith("input:")).every((h) => h.length <= "input:".length + 1)).toBe(true);
    page.close();
  });

  test("the page moves the focus to its own other field at the third key: the rest is not typed there", async () => {
    const page = await aimPage("move");
    const err = await fails(["type", "abcdefgh", "--target", "#first"], "input_diverted", 14);
    expect(err.data).toMatchObject({ delivered: 2, uncertain: 1, not_sent: 5, focus: { role: "textbox", name: "Second", frame: false } });
    expect(await page.evaluate(`document.getElementById("first").value`)).toBe("ab");
    expect((await page.evaluate(`document.getElementById("second").value`)).length).toBeLessThanOrEqual(1);
    page.close();
  });

  // Where the focus is must be looked at once the key's keyup has been handled whole, and without bsk's own listeners
  // hearing the page's keys (a page can keep them to itself): a look taken as the keyup is heard, or that waits to
  // hear it, would miss these.
  for (const [mode, how] of [
    ["move-on-keyup", "on the third key's keyup"],
    ["hush", "at the third key, its keyups kept from bsk"],
  ] as const) {
    test(`the page moves the focus to its own other field ${how}: the rest is not typed there`, async () => {
      const page = await aimPage(mode);
      const err = await fails(["type", "abcdefgh", "--target", "#first"], "input_diverted", 14);
      expect(err.data).toMatchObject({ delivered: 2, uncertain: 1, not_sent: 5, focus: { role: "textbox", name: "Second", frame: false } });
      // Moved at the keydown, the third key's text goes to Second (the key sent while the focus moved); at the keyup, to First.
      const third = mode === "hush" ? ["ab", "c"] : ["abc", ""];
      expect(await page.evaluate(`document.getElementById("first").value + "|" + document.getElementById("second").value`)).toBe(
        third.join("|"),
      );
      page.close();
    });
  }

  test("with no target, a field handing on to the next in the same document is the page's own way: all is typed", async () => {
    const page = await aimPage("move");
    await w.ok(["focus", "#first", "--session", s]);
    const r = await run(["type", "abcdefgh"]);
    expect(r.code, r.stdout).toBe(0);
    expect(
      (await page.evaluate(`document.getElementById("first").value + "|" + document.getElementById("second").value`)).replace("|", ""),
    ).toBe("abcdefgh");
    page.close();
  });

  test("the page navigates itself mid-typing: bsk stops, the new page gets at most one key", async () => {
    const page = await aimPage("navigate");
    const err = await fails(["type", "99999999999999999999", "--target", "#amt", "--delay", "100ms"], "navigated_during_input", 15);
    expect(err.data.total).toBe(20);
    expect(err.data.delivered).toBeGreaterThanOrEqual(2);
    expect(err.data.not_sent).toBeGreaterThan(0);
    const landed = await PersonPage.find(w.browser.cdpPort!, "aim-landed.html");
    expect((await landed.evaluate("got")).length).toBeLessThanOrEqual(1);
    landed.close();
    page.close();
  });

  test("fill whose field hands the focus away as it gets it: input_diverted, the field stays empty", async () => {
    const page = await aimPage("decoy");
    const err = await fails(["fill", "#pw", "hunter2"], "input_diverted", 14);
    expect(err.data.focus).toMatchObject({ role: "textbox", name: "Decoy" });
    expect(await page.evaluate(`document.getElementById("pw").value`)).toBe("");
    page.close();
  });
});

describe("a drop bound to its target", () => {
  for (const [from, how] of [
    ["#item", "an HTML5 drag"],
    ["#plain", "a pressed move"],
  ] as const) {
    test(`another site's frame slid over the drop target as ${how} starts: nothing is dropped, the reply says so`, async () => {
      const m = ++marker;
      await w.ok(["navigate", w.fixtures.url(`/aim-drag.html?m=${m}`), "--session", s]);
      const page = await PersonPage.find(w.browser.cdpPort!, `aim-drag.html?m=${m}`);
      await page.waitFor(`document.readyState === "complete"`);
      const err = await fails(["drag", from, "#zone"], "input_diverted", 14);
      expect(err.data).toMatchObject({ reason: "drop_target_covered", covered_by: { name: "Thief", selector: "iframe#thief" } });
      expect(await page.evaluate("drops")).toEqual([]);
      expect((await thiefHeard(page)).filter((h) => h === "drop" || h === "mouseup")).toEqual([]);
      page.close();
    });
  }
});
