/**
 * Snapshot items an agent must read from the text alone (issue 14), on a page built for them
 * (tests/fixtures/pages/snap-controls.html): unlabelled file inputs, duplicated controls in cards, a custom
 * select, a long select, a canvas and an unnamed clickable box, a drop zone, and the lean header.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useWorld, type World } from "./harness.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

const snapshot = async (...args: string[]) => (await w.ok(["snapshot", "--session", s, ...args])).text as string;
function refOf(text: string, re: RegExp): string {
  const line = text.split("\n").find((l) => re.test(l));
  const ref = line && /@e\d+/.exec(line)?.[0];
  if (!ref) throw new Error(`no line with a ref matches ${re}:\n${text}`);
  return ref;
}
function file(name: string): string {
  const dir = join(w.home, "uploads");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `bytes of ${name}`);
  return join(dir, name);
}

describe("snapshot: controls named from the text alone", () => {
  test("a file input is named as the browser names it, marked [file], and shows the chosen files", async () => {
    await w.ok(["navigate", w.fixtures.url("/snap-controls.html"), "--session", s]);
    const text = await snapshot();
    expect(text).toMatch(/^button "Choose File" @e\d+ \[file, empty\]$/m);
    expect(text).toMatch(/^button "Choose Files" @e\d+ \[file, multiple, empty\]$/m);
    await w.ok(["upload", refOf(text, /"Choose File"/), "--file", file("cv.pdf"), "--session", s]);
    await w.ok(["upload", refOf(text, /"Choose Files"/), "--file", file("a.png"), "--file", file("b.png"), "--session", s]);
    const after = await snapshot();
    expect(after).toMatch(/^button "Choose File" @e\d+ \[file, files="cv.pdf"\]$/m);
    expect(after).toMatch(/^button "Choose Files" @e\d+ \[file, multiple, files="a.png, b.png"\]$/m);
  });

  test("duplicates in cards whose first label repeats take the card's title, not an ordinal", async () => {
    const text = await snapshot();
    for (const card of ["Visa 4242", "Mastercard 5555"]) {
      expect(text).toMatch(new RegExp(`checkbox "Use as default" @e\\d+ \\[in: "${card}"\\]`));
      expect(text).toMatch(new RegExp(`button "Edit" @e\\d+ \\[in: "${card}"\\]`));
    }
    expect(text).not.toContain("nth=");
    const edit = refOf(text, /button "Edit".*Mastercard/);
    const html = await w.ok(["evaluate", "document.querySelectorAll('.card button')[1] === document.activeElement", "--session", s]);
    expect(html.value).toBe(false);
    await w.ok(["focus", edit, "--session", s]);
    const focused = await w.ok(["evaluate", "document.querySelectorAll('.card button')[1] === document.activeElement", "--session", s]);
    expect(focused.value).toBe(true);
  });

  test("a custom select prints its label once and its current choice as the value", async () => {
    const text = await snapshot();
    expect(text).toMatch(/^button "Plan" @e\d+ \[value="Pro", haspopup=listbox\]$/m);
    expect(text).not.toMatch(/^"Plan"$/m);
    expect(text).not.toMatch(/"Pro"\n/);
  });

  test("a long select lists its first options and the selected one, and says how to see the rest", async () => {
    const text = await snapshot();
    const first = Array.from({ length: 10 }, (_, i) => `"C${i}"`).join(",");
    expect(text).toContain(`combobox "Country" @`);
    expect(text).toContain(`[value="C12", options=[${first},"C12",+4 more: --max-options 15]]`);
    const all = await snapshot("--max-options", "15");
    expect(all).toContain(`options=[${Array.from({ length: 15 }, (_, i) => `"C${i}"`).join(",")}]]`);
  });

  test("a canvas and an unnamed clickable box print their kind and size, with refs that act", async () => {
    const text = await snapshot();
    expect(text).toMatch(/^canvas 320×200 @e\d+$/m);
    expect(text).toMatch(/^div 24×24 @e\d+$/m);
    expect(text).not.toContain("clickable @e");
    await w.ok(["click", refOf(text, /^div 24×24/), "--session", s]);
    expect((await w.ok(["evaluate", "document.title", "--session", s])).value).toBe("icon");
  });

  test("a drop zone gets a ref and [drop]; upload --mode drop reaches it by that ref; <body>'s listener is the page's", async () => {
    const text = await snapshot();
    expect(text).toMatch(/^group "Drop files here" @e\d+ \[drop\]$/m);
    expect(text.split("\n")[1]).toMatch(/^document @e\d+ \[drop\]$/);
    expect(text.match(/\[drop\]/g)).toHaveLength(2);
    await w.ok(["upload", refOf(text, /"Drop files here"/), "--mode", "drop", "--file", file("photo.jpg"), "--session", s]);
    expect((await w.ok(["evaluate", "document.getElementById('dropped').textContent", "--session", s])).value).toBe("dropped photo.jpg");
  });

  test("the header: no tab id for the current tab, the URL without its query unless --full-url", async () => {
    const url = w.fixtures.url("/snap-controls.html?session=abc&token=xyz#top");
    const current = (await w.ok(["navigate", url, "--session", s])).tab_id as number;
    const head = (await snapshot()).split("\n")[0]!;
    expect(head).toMatch(/^# Snap Controls · http:\/\/127\.0\.0\.1:\d+\/snap-controls\.html\?…#top$/);
    expect((await snapshot("--full-url")).split("\n")[0]).toEndWith("/snap-controls.html?session=abc&token=xyz#top");
    expect((await snapshot("--tab", String(current))).split("\n")[0]).toStartWith("# Snap Controls · ");
    await w.ok(["tab", "create", w.fixtures.url("/snap-modal.html"), "--session", s]);
    expect((await snapshot("--tab", String(current))).split("\n")[0]).toStartWith(`# tab ${current} · Snap Controls · `);
  });
});
