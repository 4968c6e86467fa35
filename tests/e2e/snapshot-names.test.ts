/**
 * Names an agent decides from (issue 39 items 1–4), on a page built for the defects it showed
 * (tests/fixtures/pages/snap-names.html): containers named by their hidden descendants' text run together,
 * a textarea that read like a text field, icon-only controls with nothing to go by.
 */
import { describe, expect, test } from "bun:test";
import { useWorld, type World } from "./harness.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

const snapshot = async () => (await w.ok(["snapshot", "--session", s])).text as string;
const line = (text: string, re: RegExp) => {
  const l = text.split("\n").find((x) => re.test(x));
  if (!l) throw new Error(`no line matches ${re}:\n${text}`);
  return l.trim();
};
const refOf = (text: string, re: RegExp) => /@e\d+/.exec(line(text, re))![0];
const title = async () => (await w.ok(["evaluate", "document.title", "--session", s])).value as string;

describe("snapshot: names from what is shown", () => {
  test("a clickable list of suggestions is not named by its items run together, hidden ones included", async () => {
    await w.ok(["navigate", w.fixtures.url("/snap-names.html"), "--session", s]);
    const text = await snapshot();
    expect(text).not.toMatch(/GuadeloupeGuam|Germany/);
    for (const item of ["Guadeloupe", "Guam", "Guatemala"]) expect(text).toMatch(new RegExp(`^\\s*clickable "${item}" @e\\d+$`, "m"));
    // The container keeps its ref (its handler is the page's), but with no name that competes with its items.
    expect(text).toMatch(/^div \d+×\d+ @e\d+$/m);
    expect(text.match(/Guatemala/g)).toHaveLength(1);
    await w.ok(["click", refOf(text, /clickable "Guatemala"/), "--session", s]);
    expect(await title()).toBe("picked Guatemala");
  });

  test("menu items are named without their hidden submenus (display:none, hidden, aria-hidden, visibility)", async () => {
    const text = await snapshot();
    for (const item of ["Willa", "Marcille", "Rosa", "Ida"]) expect(text).toMatch(new RegExp(`^\\s*clickable "${item}" @e\\d+$`, "m"));
    expect(text).not.toMatch(/Gerda|Alvera|Ottilie|Hedda|Kaja/);
  });

  test("a collapsed folder is named by its own label; an open one does not repeat its children's names", async () => {
    const text = await snapshot();
    expect(text).toMatch(/^clickable "Truman" @e\d+$/m);
    expect(text).not.toMatch(/Keli|Briana/);
    expect(text).toMatch(/^clickable "Odile" @e\d+\n {2}clickable "Petra" @e\d+\n {2}clickable "Quinn" @e\d+$/m);
    expect(text).toMatch(/^ {2}treeitem "Docs" @e\d+ \[collapsed\]$/m);
    expect(text).not.toContain("Spec");
    expect(text).toMatch(/^ {2}treeitem "Music" @e\d+ \[expanded\]\n {4}treeitem "Song" @e\d+\n {4}treeitem "Album" @e\d+$/m);
  });

  test("block boundaries separate the words of a name", async () => {
    const text = await snapshot();
    expect(text).toMatch(/^clickable "Ada Lovelace" @e\d+$/m);
  });

  test("a clickable too long to be named by all its text is named by its first line, and says the rest once", async () => {
    const text = await snapshot();
    expect(text).toMatch(
      /^clickable "Ana Silva" @e\d+\n {2}checkbox "Select" @e\d+\n {2}"Quarterly report draft — the numbers for the third quarter are attached"$/m,
    );
    expect(text.match(/Quarterly/g)).toHaveLength(1);
  });

  test("a textarea, or a textbox marked aria-multiline, says multiline; a text field does not", async () => {
    const text = await snapshot();
    expect(line(text, /"Message"/)).toMatch(/^textbox "Message" @e\d+ \[multiline, empty\]$/);
    expect(line(text, /"Notes"/)).toMatch(/^textbox "Notes" @e\d+ \[multiline\b/);
    expect(line(text, /"Subject"/)).toMatch(/^textbox "Subject" @e\d+ \[empty\]$/);
    expect(line(text, /"Tag"/)).not.toContain("multiline");
    await w.ok(["fill", refOf(text, /"Message"/), "two\nlines", "--session", s]);
    expect(line(await snapshot(), /"Message"/)).toMatch(/^textbox "Message" @e\d+ \[multiline, value="two lines"\]$/);
  });

  test("an icon-only control gets a marked hint from what the page says, never a name, and acts", async () => {
    const text = await snapshot();
    const hints: [string, string][] = [
      ["reply", "reply"],
      ["delete", "trash"],
      ["star", "star"],
      ["archive", "archive"],
      ["flag", "flag"],
      ["forward", "forward"],
    ];
    for (const [hint, clicked] of hints) {
      const l = line(text, new RegExp(`\\[hint: ${hint}\\]`));
      expect(l).toMatch(new RegExp(`^(clickable|button) @e\\d+ \\[hint: ${hint}\\]$`));
      await w.ok(["click", /@e\d+/.exec(l)![0], "--session", s]);
      expect(await title()).toBe(clicked);
    }
    // A control with a name needs no hint.
    expect(line(text, /"Snooze"/)).toMatch(/^clickable "Snooze" @e\d+$/);
    expect(text).not.toMatch(/clickable @e\d+$/m);
  });

  test("refs stay the same from one snapshot to the next", async () => {
    const refs = (t: string) => [...t.matchAll(/@e\d+/g)].map((m) => m[0]);
    const first = refs(await snapshot());
    expect(first.length).toBeGreaterThan(25);
    expect(refs(await snapshot())).toEqual(first);
  });
});
