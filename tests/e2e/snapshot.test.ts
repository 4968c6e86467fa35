/** Snapshot, refs, find, screenshot and get-html end to end: real Chromium, the built extension, dist/bsk. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { until, useWorld, type World } from "./harness.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

const open = (page: string) => w.ok(["navigate", w.fixtures.url(`/${page}`), "--session", s]);
const snapshot = async (...args: string[]) =>
  (await w.ok(["snapshot", "--session", s, ...args])) as {
    text: string;
    cursor: string | null;
    truncated: boolean;
    tokens: number;
    refs: number;
  };
const lines = (text: string) => text.split("\n").slice(1);
/** The ref on the (first) line matching `re`. */
function refOf(text: string, re: RegExp): string {
  const line = text.split("\n").find((l) => re.test(l));
  const ref = line && /@e\d+/.exec(line)?.[0];
  if (!ref) throw new Error(`no line with a ref matches ${re}:\n${text}`);
  return ref;
}
async function fails(args: string[]): Promise<{ code: number; error: any }> {
  const r = await w.bsk([...args, "--session", s, "--json"]);
  return { code: r.code, error: r.json?.error };
}

describe("snapshot", () => {
  test("header, refs equal across two snapshots of an unchanged page, duplicates disambiguated by row", async () => {
    await open("snap-table.html");
    const a = await snapshot();
    const b = await snapshot();
    expect(a.text.split("\n")[0]).toMatch(/^# Snap Table · http:\/\/127\.0\.0\.1:\d+\/snap-table\.html$/);
    expect(a.tokens).toBeGreaterThan(0);
    expect(lines(b.text)).toEqual(lines(a.text));
    expect(a.text).toContain('table "Team members"');
    // Each View sits under its own row's line, which tells them apart: the label is left to find and --diff.
    expect(a.text).toMatch(/\n *row "Zhang San[^"\n]*"\n *button "View" @e\d+\n/);
    expect(a.text).toMatch(/\n *row "Li Si[^"\n]*"\n *button "View" @e\d+\n/);
    expect(a.text).not.toMatch(/"View".*\[in:/);
    expect(a.text).toMatch(/button "Add to cart" @e\d+ \[in: "Gadget"\]/);
    expect(a.text).toMatch(/button "Remove" @e\d+ \[in: item "Pears"\]/);
    expect(a.text).toMatch(/button "Help" @e\d+ \[nth=2\]/);
    expect(a.refs).toBe(9);

    // Row 2's ref is row 2's button.
    const view2 = /row "Li Si[^\n]*\n *button "View" (@e\d+)/.exec(a.text)![1]!;
    const found = await w.ok(["find", "View", "--session", s]);
    expect(found.matches).toContainEqual({ line: `button "View" ${view2} [in: row "Li Si"]`, ref: view2 });
    const html = await w.ok(["get-html", "--ref", view2, "--session", s]);
    expect(html.html).toBe(`<button onclick="document.title='row 2'">View</button>`);
    await w.ok(["click", view2, "--session", s]);
    expect((await w.ok(["evaluate", "document.title", "--session", s])).value).toBe("row 2");
  });

  test("labels bound to controls, form state, secrets masked", async () => {
    await open("snap-form.html");
    const { text } = await snapshot();
    for (const expected of [
      /textbox "Full name" @e\d+ \[empty, required\]/,
      /textbox "Email" @e\d+ \[value="ada@example.com", default\]/,
      /textbox "Password" @e\d+ \[value="•••", default\]/,
      /textbox "Card number" @e\d+ \[value="•••", default\]/,
      /textbox "One-time code" @e\d+ \[value="•••", default\]/,
      /spinbutton "Quantity" @e\d+ \[value="2", default\]/,
      /searchbox "Search products" @e\d+ \[empty\]/,
      /combobox "Country" @e\d+ \[value="Germany", options=\["Choose…","Germany","France"\]\]/,
      /listbox "Colors" @e\d+ \[selected="Red, Blue"/,
      /group "Shipping"\n\s+radio "Standard" @e\d+ \[checked\]\n\s+radio "Express" @e\d+\n/,
      /checkbox "I agree to the terms" @e\d+ \[required\]/,
      /link "terms" @e\d+/,
      /checkbox "Newsletter" @e\d+ \[checked\]/,
      /textbox "Coupon" @e\d+ \[value="SAVE10", default, disabled\]/,
      /textbox "ZIP" @e\d+ \[value="abc", default, invalid\]/,
      /switch "Dark mode" @e\d+ \[checked\]/,
      /button "Save draft" @e\d+ \[disabled\]/,
      /clickable "Gift wrap" @e\d+/,
      /textbox @e\d+ \[value="Hello editor"\]/,
      /clickable "Focusable tile" @e\d+/,
      /button "More options" @e\d+ \[collapsed\]/,
    ]) {
      expect(text).toMatch(expected);
    }
    // Label text is the control's name, not a line of its own; hidden content is not shown; secrets never leave.
    expect(text).not.toMatch(/^\s*"Full name"$/m);
    for (const absent of ["Hidden details text", "Invisible text", "Aria hidden text", "hunter2", "4111111111111111", "123456"]) {
      expect(text).not.toContain(absent);
    }
    // Typed values are read live, and a typed secret stays masked.
    await w.ok([
      "evaluate",
      "document.getElementById('name').value = 'Ada Lovelace'; document.getElementById('pw').value = 'typed-secret'",
      "--session",
      s,
    ]);
    const after = (await snapshot()).text;
    expect(after).toMatch(/textbox "Full name" @e\d+ \[value="Ada Lovelace", required\]/);
    expect(after).not.toContain("typed-secret");
    const html = await w.ok(["get-html", "--ref", "#pw", "--session", s]);
    expect(html.html).not.toContain("hunter2");
  });

  test("iframes inline: same-origin, cross-site out of process, nested; their refs resolve in their frame", async () => {
    await open("snap-frames.html");
    const { text } = await snapshot();
    expect(text).toMatch(
      /iframe "Same origin" @e\d+\n {2}button "Inner button" @e\d+\n {2}textbox "Inner field" @e\d+ .*\niframe "Cross site" @e\d+\n {2}button "Inner button" @e\d+/,
    );
    expect(text).toMatch(/iframe "Nested" @e\d+\n {2}"Middle frame"\n {2}iframe "Deepest" @e\d+\n {4}button "Inner button" @e\d+/);
    const inner = [...text.matchAll(/button "Inner button" (@e\d+)/g)].map((m) => m[1]!);
    expect(inner).toHaveLength(3);
    expect(new Set(inner).size).toBe(3);

    // The cross-site frame runs in its own process: the browser lists it as an iframe target of its own.
    const { targetInfos } = await w.person.send("Target.getTargets");
    expect(
      targetInfos.some((t: any) => t.type === "iframe" && t.url.includes("localhost") && t.url.includes("snap-frame-inner.html?cross")),
    ).toBe(true);

    for (const ref of inner) {
      const html = await w.ok(["get-html", "--ref", ref, "--session", s]);
      expect(html.html).toContain("Inner button</button>");
    }
    // Clicks land in the right frame (frame offsets), and the frame's own script sees them (evaluate --frame @iframe).
    const frames = [...text.matchAll(/iframe "(?:Same origin|Cross site|Deepest)" (@e\d+)/g)].map((m) => m[1]!);
    for (const ref of inner) await w.ok(["click", ref, "--session", s]);
    for (const frame of frames) {
      expect((await w.ok(["evaluate", "document.body.dataset.clicked", "--frame", frame, "--session", s])).value).toBe("1");
    }
    // An element screenshot of the cross-site frame's button: its box is found through the frame's offset.
    const shot = await w.ok(["screenshot", "--ref", inner[1]!, "--session", s, "--out", w.out]);
    expect(shot.width).toBeGreaterThan(20);
    expect(shot.width).toBeLessThan(200);

    // The cross-site frame navigates: its refs are stale, the others still work.
    await w.ok(["evaluate", `document.getElementById("cross").src = "${w.fixtures.crossUrl("/snap-frame-nested.html")}"`, "--session", s]);
    await until("the cross-site frame to show its new page", async () =>
      /iframe "Cross site" @e\d+\n {2}"Middle frame"/.test((await snapshot()).text),
    );
    const gone = await fails(["get-html", "--ref", inner[1]!]);
    expect(gone.error).toMatchObject({ code: "stale_ref", data: { reason: "document_changed" } });
    expect((await w.ok(["get-html", "--ref", inner[0]!, "--session", s])).html).toContain("Inner button");
  });

  test("open shadow roots inline; selectors reach into them and must match exactly one element", async () => {
    await open("snap-shadow.html");
    const { text } = await snapshot();
    expect(text).toMatch(
      /heading "Slotted title" \[level=2\]\ntextbox "Shadow input" @e\d+ \[value="deep", default\]\nbutton "Shadow button" @e\d+\nlink "Deeper link" @e\d+/,
    );
    const html = await w.ok(["get-html", "--ref", refOf(text, /Deeper link/), "--session", s]);
    expect(html.html).toBe('<a href="#deeper">Deeper link</a>');
    expect((await w.ok(["get-html", "--ref", "#shadow-btn", "--session", s])).html).toContain("Shadow button");

    const many = await fails(["get-html", "--ref", "h1, h2"]);
    expect(many.code).toBe(1);
    expect(many.error).toMatchObject({ code: "invalid_params", data: { reason: "ambiguous_selector", count: 2 } });
    const none = await fails(["get-html", "--ref", "#nope"]);
    expect(none.error).toMatchObject({ code: "not_found", data: { reason: "selector_not_found" } });
    const bad = await fails(["get-html", "--ref", "button[["]);
    expect(bad.error).toMatchObject({ code: "invalid_params", data: { reason: "invalid_selector" } });
  });

  test("a modal dialog is the active layer; the page it covers is summarised", async () => {
    await open("snap-modal.html");
    const { text } = await snapshot();
    expect(lines(text)).toEqual([
      'dialog "Delete account?"',
      '  "This cannot be undone."',
      expect.stringMatching(/^ {2}button "Cancel" @e\d+$/),
      expect.stringMatching(/^ {2}button "Delete" @e\d+$/),
      "# covered by the dialog: 4 controls, not actionable",
    ]);
  });

  test("refs fail closed: stale after navigation or removal, unknown refs are not found", async () => {
    await open("snap-table.html");
    const { text } = await snapshot();
    const help = refOf(text, /"Help".*nth=1/);
    const remove = refOf(text, /"Remove".*"Apples"/);
    await w.ok(["evaluate", "document.querySelector('li button').remove()", "--session", s]);
    const removed = await fails(["get-html", "--ref", remove]);
    expect(removed.code).toBe(1);
    expect(removed.error).toMatchObject({ code: "stale_ref", data: { reason: "node_removed" } });

    await open("snap-form.html");
    const stale = await fails(["screenshot", "--ref", help]);
    expect(stale.code).toBe(1);
    expect(stale.error.code).toBe("stale_ref");
    expect(stale.error.data.reason).toBe("document_changed");
    expect(stale.error.message).toContain("navigated");
    expect(stale.error.message).toContain('button "Help"');

    const unknown = await fails(["get-html", "--ref", "@e99999"]);
    expect(unknown.error).toMatchObject({ code: "not_found", data: { reason: "ref_not_found" } });
    // Refs are never reused: the new page's refs are all above the old ones.
    const fresh = (await snapshot()).text;
    const numbers = [...fresh.matchAll(/@e(\d+)/g)].map((m) => Number(m[1]));
    expect(Math.min(...numbers)).toBeGreaterThan(Number(help.slice(2)));
  });

  test("--diff shows only what changed; find searches the last snapshot", async () => {
    await open("snap-table.html");
    await snapshot();
    await w.ok([
      "evaluate",
      "document.querySelector('h1').textContent = 'People'; document.body.insertAdjacentHTML('beforeend', '<button>Invite</button>')",
      "--session",
      s,
    ]);
    const d = await w.ok(["snapshot", "--diff", "--session", s]);
    expect(d.diff).toBe(true);
    expect(d.text.split("\n")[0]).toMatch(/diff vs snapshot \d+s ago: \+2 -1/);
    expect(lines(d.text)).toEqual([
      '- heading "Users" [level=1]',
      '+ heading "People" [level=1]',
      expect.stringMatching(/^\+ button "Invite" @e\d+$/),
    ]);
    const same = await w.ok(["snapshot", "--diff", "--session", s]);
    expect(lines(same.text)).toEqual([]);
    expect(same.text).toContain("no change since the snapshot");

    const found = await w.ok(["find", "view", "--session", s]);
    expect(found.total).toBe(3);
    expect(found.matches[1]).toEqual({
      line: expect.stringMatching(/^button "View" @e\d+ \[in: row "Li Si"\]$/),
      ref: expect.stringMatching(/^@e\d+$/),
    });
    const rx = await w.ok(["find", "/^row .*example\\.com/", "--session", s]);
    expect(rx.total).toBe(3);
    expect(rx.matches[0].ref).toBeNull();
  });

  test("observe --probe-hover reveals a hover-only menu", async () => {
    await open("snap-hover.html");
    const plain = await snapshot();
    expect(plain.text).not.toContain("Settings");
    const o = await w.ok(["observe", "--probe-hover", "--session", s]);
    expect(o.text).toMatch(
      /# hovering clickable "Account ▾" @e\d+ reveals \(bsk hover it first, then act\):\n {2}link "Settings" @e\d+\n {2}link "Log out" @e\d+/,
    );
  });
});

describe("refs and the service worker", () => {
  test("refs survive a worker restart, out-of-process frames included", async () => {
    await open("snap-frames.html");
    const before = (await snapshot()).text;
    const same = refOf(before, /^ {2}button "Inner button"/);
    const { targetInfos } = await w.person.send("Target.getTargets");
    const sw = targetInfos.find((t: any) => t.type === "service_worker" && t.url.includes(EXTENSION_ID));
    await w.person.send("Target.closeTarget", { targetId: sw.targetId });
    await w.person.openTab(`chrome-extension://${EXTENSION_ID}/connect.html?port=${w.port}&label=e2e&close=1`);
    const after = await until("a snapshot from the restarted worker", async () => {
      const r = await w.bsk(["snapshot", "--session", s, "--json"]);
      return r.code === 0 ? (r.json.result.text as string) : undefined;
    });
    expect(lines(after)).toEqual(lines(before));
    const crossRef = [...before.matchAll(/button "Inner button" (@e\d+)/g)][1]![1]!;
    expect((await w.ok(["get-html", "--ref", crossRef, "--session", s])).html).toContain("Inner button");
    expect((await w.ok(["get-html", "--ref", same, "--session", s])).html).toContain("Inner button");
  });
});

describe("a 10,000-node page", () => {
  test("paged with --max-tokens and --cursor covers every node exactly once", async () => {
    await open("snap-big.html");
    const count = await w.ok(["evaluate", "document.querySelectorAll('*').length", "--session", s]);
    expect(count.value).toBeGreaterThan(10_000);
    const body: string[] = [];
    let part = await w.ok(["snapshot", "--max-tokens", "6000", "--session", s]);
    const parts = [part];
    while (part.cursor) {
      // A cursor continues the first call's split: asked without --max-tokens (8000 by default) or with another
      // budget, the parts keep 6000 and their `part k/n` keeps its n.
      const budget = parts.length % 2 ? [] : ["--max-tokens", "20000"];
      part = await w.ok(["snapshot", ...budget, "--cursor", part.cursor, "--session", s]);
      parts.push(part);
    }
    expect(parts.length).toBeGreaterThan(3);
    parts.forEach((p, i) => {
      expect(p.text.split("\n")[0]).toContain(`part ${i + 1}/${parts.length}`);
      expect(p.tokens).toBeLessThanOrEqual(6000);
      body.push(...lines(p.text));
    });
    const seen = new Map<string, number>();
    for (const l of body) seen.set(l.trim(), (seen.get(l.trim()) ?? 0) + 1);
    for (let i = 0; i < 1000; i++) {
      for (const re of [`heading "Item ${i}" [level=3]`, `"Description of item ${i} tag${i % 7}"`]) expect(seen.get(re)).toBe(1);
      expect(body.filter((l) => l.includes(`link "Open item ${i}" @e`))).toHaveLength(1);
      expect(body.filter((l) => l.includes(`button "Buy item ${i}" @e`))).toHaveLength(1);
    }
    const expired = await fails(["snapshot", "--cursor", "0123456789ab.5.2"]);
    expect(expired.error).toMatchObject({ code: "not_found", data: { reason: "cursor_expired" } });
  });

  test("--viewport lists what is in the viewport first", async () => {
    const v = await w.ok(["snapshot", "--viewport", "--max-tokens", "200000", "--session", s]);
    const body = lines(v.text);
    const marker = body.indexOf("# outside the viewport:");
    expect(marker).toBeGreaterThan(0);
    expect(body.slice(0, marker).join("\n")).toContain('heading "Item 0"');
    expect(body.slice(marker).join("\n")).toContain('heading "Item 999"');
  });

  test("get-html --max-bytes truncates", async () => {
    const r = await w.ok(["get-html", "--max-bytes", "2048", "--session", s]);
    expect(r.truncated).toBe(true);
    expect(r.bytes).toBeGreaterThan(100_000);
    expect(new TextEncoder().encode(r.html).length).toBeLessThanOrEqual(2048);
    expect(r.html.startsWith("<!DOCTYPE html>")).toBe(true);
  });
});

describe("screenshot", () => {
  const bytesOf = (r: any): Uint8Array =>
    r.path ? new Uint8Array(readFileSync(r.path)) : Uint8Array.from(atob(r.data), (c) => c.charCodeAt(0));

  test("viewport PNG and element JPEG", async () => {
    await open("snap-table.html");
    const png = await w.ok(["screenshot", "--session", s, "--out", w.out]);
    const p = bytesOf(png);
    expect([...p.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png).toMatchObject({ format: "png", bytes: p.length });
    expect(png.width).toBeGreaterThan(300);

    const { text } = await snapshot();
    const jpeg = await w.ok([
      "screenshot",
      "--ref",
      /row "Zhang San[^\n]*\n *button "View" (@e\d+)/.exec(text)![1]!,
      "--format",
      "jpeg",
      "--quality",
      "70",
      "--session",
      s,
      "--out",
      w.out,
    ]);
    const j = bytesOf(jpeg);
    expect([...j.slice(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(jpeg.format).toBe("jpeg");
    expect(jpeg.width).toBeLessThan(png.width / 2);
    expect(jpeg.height).toBeLessThan(60);
  });
});

describe("replies use the snapshot's words", () => {
  test("a click on a ref names the element as the snapshot did, not by the browser's role for the bare element", async () => {
    await open("snap-form.html");
    const ref = refOf((await snapshot()).text, /clickable "Gift wrap"/);
    const r = await w.bsk(["click", ref, "--session", s]);
    expect(r.code).toBe(0);
    // It said `clicked generic @eN` before.
    expect(r.stdout).toStartWith(`clicked clickable "Gift wrap" ${ref}`);
  });
});
