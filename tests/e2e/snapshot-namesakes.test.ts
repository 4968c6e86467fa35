/**
 * Controls sharing a role and a name stay told apart in the lean format (issue 39 item 5), on a page of their own
 * (tests/fixtures/pages/namesakes.html): a control whose parent line already tells it apart (its row, its group,
 * the clickable mail it sits in) carries no `[in: …]` label in the snapshot; one whose parent line reads like a
 * namesake's (two rows that read the same, a flat card, one group holding two) keeps its label; `find` gives every
 * namesake's line labelled, since its lines are read without the tree. Each ref is clicked to show it is the one
 * its place says.
 */
import { describe, expect, test } from "bun:test";
import { useWorld, type World } from "./harness.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

/** Two spaces per level. */
const depthOf = (l: string) => (l.length - l.trimStart().length) / 2;

/** What the agent reads for each ref: its line and every enclosing line, refs left out. */
function readings(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split("\n").slice(1);
  lines.forEach((l, i) => {
    const ref = /@e\d+/.exec(l)?.[0];
    if (!ref) return;
    const chain = [l.trim()];
    for (let j = i - 1, d = depthOf(l); j >= 0 && d > 0; j--) {
      if (depthOf(lines[j]!) < d) {
        chain.unshift(lines[j]!.trim());
        d = depthOf(lines[j]!);
      }
    }
    out.set(ref, chain.join(" > ").replace(/ @e\d+/g, ""));
  });
  return out;
}

/** The ref of the line matching `child` among the lines directly under the first line matching `parent`. */
function under(text: string, parent: RegExp, child: RegExp): string {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => parent.test(l));
  if (at < 0) throw new Error(`no line matches ${parent}:\n${text}`);
  const d = depthOf(lines[at]!);
  for (let i = at + 1; i < lines.length && depthOf(lines[i]!) > d; i++) {
    if (depthOf(lines[i]!) === d + 1 && child.test(lines[i]!)) return /@e\d+/.exec(lines[i]!)![0];
  }
  throw new Error(`no line matching ${child} under ${parent}:\n${text}`);
}

const clicked = async (ref: string) => {
  await w.ok(["click", ref, "--session", s]);
  return (await w.ok(["evaluate", "document.title", "--session", s])).value as string;
};

describe("snapshot: same-named controls told apart", () => {
  test("no two controls read the same; labels only where the parent line does not tell them apart", async () => {
    await w.ok(["navigate", w.fixtures.url("/namesakes.html"), "--session", s]);
    const text = (await w.ok(["snapshot", "--session", s])).text as string;
    const read = readings(text);
    expect(read.size).toBe(14); // 12 namesakes and the two clickable mails
    expect(new Set(read.values()).size).toBe(read.size);

    // Told apart by their parent lines: no label.
    const inv1 = under(text, /row "INV-1/, /^ *button "Refund" @e\d+$/);
    const inv2 = under(text, /row "INV-2/, /^ *button "Refund" @e\d+$/);
    const ana = under(text, /clickable "Ana[^"]*" @e\d+$/, /^ *button "Archive" @e\d+$/);
    const ben = under(text, /clickable "Ben[^"]*" @e\d+$/, /^ *button "Archive" @e\d+$/);
    const billing = under(text, /group "Billing"/, /^ *button "Edit" @e\d+$/);
    const shipping = under(text, /group "Shipping"/, /^ *button "Edit" @e\d+$/);
    // Parent lines that read the same (two equal rows, one group), or none (flat cards): labelled in the tree.
    const inv3 = [...text.matchAll(/row "INV-3[^\n]*\n *button "Refund" (@e\d+) \[nth=(\d)\]/g)].map((m) => m[1]!);
    expect(inv3).toHaveLength(2);
    const remove = [...text.matchAll(/button "Remove" (@e\d+) \[nth=\d\]/g)].map((m) => m[1]!);
    expect(remove).toHaveLength(2);
    const widget = /button "Buy" (@e\d+) \[in: "Widget"\]/.exec(text)![1]!;
    const gadget = /button "Buy" (@e\d+) \[in: "Gadget"\]/.exec(text)![1]!;

    const expected: [string, string][] = [
      [inv1, "INV-1"],
      [inv2, "INV-2"],
      [inv3[0]!, "INV-3 first"],
      [inv3[1]!, "INV-3 second"],
      [ana, "archive Ana"],
      [ben, "archive Ben"],
      [widget, "buy Widget"],
      [gadget, "buy Gadget"],
      [billing, "edit Billing"],
      [shipping, "edit Shipping"],
      [remove[0]!, "remove Billing 1"],
      [remove[1]!, "remove Billing 2"],
    ];
    for (const [ref, id] of expected) expect({ ref, id: await clicked(ref) }).toEqual({ ref, id });
  });

  test("cut into parts or put in --viewport order, where a line can be apart from its parent line, every namesake is labelled", async () => {
    await w.ok(["navigate", w.fixtures.url("/namesakes.html"), "--session", s]);
    const unlabelled = (text: string) => text.split("\n").filter((l) => /"(Refund|Archive|Buy|Edit|Remove)" @e\d+$/.test(l));
    const first = await w.ok(["snapshot", "--max-tokens", "200", "--session", s]);
    const parts = [first.text as string];
    for (let p = first; p.cursor; ) {
      p = await w.ok(["snapshot", "--cursor", p.cursor, "--session", s]);
      parts.push(p.text as string);
    }
    expect(parts.length).toBeGreaterThan(1);
    const body = parts.flatMap((t) => t.split("\n").slice(1));
    expect(body.filter((l) => /"(Refund|Archive|Buy|Edit|Remove)" @e\d+ \[(in: |nth=)/.test(l))).toHaveLength(12);
    expect(unlabelled(body.join("\n"))).toEqual([]);
    const viewport = (await w.ok(["snapshot", "--viewport", "--session", s])).text as string;
    expect(viewport).toContain('button "Refund"');
    expect(unlabelled(viewport)).toEqual([]);
  });

  test("find: each namesake's line comes labelled, as it reads alone", async () => {
    await w.ok(["navigate", w.fixtures.url("/namesakes.html"), "--session", s]);
    await w.ok(["snapshot", "--session", s]);
    const found = await w.ok(["find", "/Refund|Archive|Edit/", "--session", s]);
    const lines = (found.matches as { line: string }[]).map((m) => m.line.replace(/ @e\d+/, ""));
    expect(lines).toEqual([
      'button "Refund" [in: row "INV-1"]',
      'button "Refund" [in: row "INV-2"]',
      'button "Refund" [nth=3]',
      'button "Refund" [nth=4]',
      expect.stringMatching(/^button "Archive" \[in: "Ana/),
      expect.stringMatching(/^button "Archive" \[in: "Ben/),
      'button "Edit" [in: group "Billing"]',
      'button "Edit" [in: group "Shipping"]',
    ]);
  });
});
