/** Worker-side rendering: header, parts cut to a token budget covering every line once, viewport order, depth. */
import { describe, expect, test } from "bun:test";
import { bodyLines, headerReserve, lineCosts, partEnds, renderPart, type CapturedLine } from "../../extension/src/page/snapshot/render.ts";
import { estimateTokens } from "../../extension/src/page/snapshot/tokens.ts";

const meta = { tabId: 7, url: "http://shop.test/", title: "Shop" };
const line = (depth: number, text: string, vis = false): CapturedLine => ({ depth, text, vis });

describe("snapshot rendering", () => {
  test("header: title, URL without its query; the tab only when it is not the current one; the estimate in the result", () => {
    const body = bodyLines([line(0, 'button "Go" @e1')], { viewport: false });
    const costs = lineCosts(body);
    const p = renderPart(meta, body, costs, partEnds(costs, 8000), 1);
    expect(p.text).toBe(`# Shop · http://shop.test/\nbutton "Go" @e1`);
    expect(p.tokens).toBe(estimateTokens(p.text.split("\n")[0]!) + 1 + Math.ceil(costs[0]!));
    expect(p.refs).toBe(1);
    const other = { ...meta, url: "http://shop.test/list?session=abc&page=2#top", showTab: true };
    expect(renderPart(other, body, costs, [1], 1).text).toStartWith("# tab 7 · Shop · http://shop.test/list?…#top\n");
    expect(renderPart({ ...other, fullUrl: true }, body, costs, [1], 1).text).toContain(
      " · http://shop.test/list?session=abc&page=2#top\n",
    );
  });

  test("parts cover every line exactly once, each within the budget, numbered k/n", () => {
    const lines = Array.from({ length: 3000 }, (_, i) => line(i % 4, `button "Buy item ${i}" @e${i + 1} [in: row "Row ${i}"]`));
    const body = bodyLines(lines, { viewport: false });
    const costs = lineCosts(body);
    const seen: string[] = [];
    const ends = partEnds(costs, 2000, headerReserve(meta));
    const parts = ends.map((_, i) => renderPart(meta, body, costs, ends, i + 1));
    for (const p of parts) {
      seen.push(...p.text.split("\n").slice(1));
      expect(p.tokens).toBeLessThanOrEqual(2000);
    }
    expect(parts.length).toBeGreaterThan(5);
    expect(seen).toEqual(body);
    parts.forEach((p, i) => expect(p.text.split("\n")[0]).toEndWith(` · part ${i + 1}/${parts.length}`));
  });

  test("a line longer than the budget still makes progress", () => {
    const body = ["x ".repeat(5000), "y"];
    expect(partEnds(lineCosts(body), 200, headerReserve(meta))).toEqual([1, 2]);
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
});
