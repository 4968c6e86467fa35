/** Worker-side rendering: header, parts cut to a token budget covering every line once, viewport order, depth. */
import { describe, expect, test } from "bun:test";
import { bodyLines, lineCosts, renderPart, type CapturedLine } from "../../extension/src/page/snapshot/render.ts";
import { estimateTokens } from "../../extension/src/page/snapshot/tokens.ts";

const meta = { tabId: 7, url: "http://shop.test/", title: "Shop" };
const line = (depth: number, text: string, vis = false): CapturedLine => ({ depth, text, vis });

describe("snapshot rendering", () => {
  test("header names tab, title, URL and the token estimate", () => {
    const body = bodyLines([line(0, 'button "Go" @e1')], { viewport: false });
    const p = renderPart(meta, body, lineCosts(body), 0, 8000, 1);
    expect(p.text).toBe(`# tab 7 · Shop · http://shop.test/ · ~${p.tokens} tokens\nbutton "Go" @e1`);
    expect(p.tokens).toBe(estimateTokens(p.text.split("\n")[0]!) + 2 + lineCosts(body)[0]!);
    expect(p.refs).toBe(1);
    expect(p.end).toBe(1);
  });

  test("parts cover every line exactly once, each within the budget, numbered k/n", () => {
    const lines = Array.from({ length: 3000 }, (_, i) => line(i % 4, `button "Buy item ${i}" @e${i + 1} [in: row "Row ${i}"]`));
    const body = bodyLines(lines, { viewport: false });
    const costs = lineCosts(body);
    const seen: string[] = [];
    const parts = [];
    for (let start = 0, n = 1; start < body.length; n++) {
      const p = renderPart(meta, body, costs, start, 2000, n);
      parts.push(p);
      seen.push(...p.text.split("\n").slice(1));
      expect(p.tokens).toBeLessThanOrEqual(2000);
      start = p.end;
    }
    expect(seen).toEqual(body);
    parts.forEach((p, i) => expect(p.text.split("\n")[0]).toContain(` · part ${i + 1}/${parts.length} · `));
  });

  test("a line longer than the budget still makes progress", () => {
    const body = ["x ".repeat(5000)];
    const p = renderPart(meta, body, lineCosts(body), 0, 200, 1);
    expect(p.end).toBe(1);
  });

  test("--viewport puts visible lines first; --max-depth hides deeper ones; the modal summary closes the body", () => {
    const lines = [line(0, "main", true), line(1, '"far"'), line(1, 'button "Near" @e1', true), line(2, '"deep"', true)];
    expect(bodyLines(lines, { viewport: true })).toEqual([
      "main",
      '  button "Near" @e1',
      '    "deep"',
      "# outside the viewport:",
      '  "far"',
    ]);
    expect(bodyLines(lines, { viewport: false, maxDepth: 2, covered: 3 })).toEqual([
      "main",
      '  "far"',
      '  button "Near" @e1',
      "# covered by the dialog: 3 controls, not actionable",
      "# 1 deeper lines not shown (--max-depth 2)",
    ]);
  });

  test("the token estimate tracks o200k on snapshot text", () => {
    // o200k counts these as 17 and 4 tokens.
    expect(estimateTokens('  button "View" @e7 [in: row "Zhang San"]')).toBeWithin(15, 20);
    expect(estimateTokens("张三的订单")).toBeWithin(3, 7);
  });
});
