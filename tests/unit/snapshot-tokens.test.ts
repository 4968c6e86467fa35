/**
 * The snapshot's token estimate against the real o200k tokenizer, on every fixture page walked on happy-dom (its
 * scripts run): the header's `~N tokens` and what `--max-tokens` cuts by must be within ±10% of o200k on each page
 * and never more than 15% above (an estimate that runs high cuts pages early).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { Window } from "happy-dom";
import { RefRegistry } from "../../extension/src/page/snapshot/page/identity.ts";
import { walkDocument } from "../../extension/src/page/snapshot/page/runtime.ts";
import { bodyLines, lineCosts, partEnds, renderPart } from "../../extension/src/page/snapshot/render.ts";
import { estimateTokens } from "../../extension/src/page/snapshot/tokens.ts";

const PAGES = join(import.meta.dir, "../fixtures/pages");

async function snapshotOf(file: string): Promise<string> {
  const win = new Window({
    url: `http://127.0.0.1:8080/${file}?session=k7qm&from=bench`,
    settings: {
      enableJavaScriptEvaluation: true,
      suppressInsecureJavaScriptEnvironmentWarning: true,
      disableCSSFileLoading: true,
      disableIframePageLoading: true,
      disableJavaScriptFileLoading: true,
    },
  });
  try {
    win.document.write(readFileSync(join(PAGES, file), "utf8"));
    // Inline scripts ran as the document was written (pages that build themselves are built now).
    const doc = win.document as unknown as Document;
    const { walk } = walkDocument(doc, new RefRegistry(), { session: "s", next: 1, viewport: false });
    const body = bodyLines(
      walk.lines.map(([depth, text]) => ({ depth, text, vis: false })),
      { viewport: false },
    );
    const costs = lineCosts(body);
    const meta = { tabId: 1234567890, url: walk.url, title: walk.title };
    const ends = partEnds(costs, 200_000);
    expect(ends).toHaveLength(1);
    const part = renderPart(meta, body, costs, ends, 1);
    return `${part.tokens}\n${part.text}`;
  } finally {
    await win.happyDOM.close();
  }
}

describe("token estimate against o200k", () => {
  test("within ±10% on every fixture page, never more than 15% above", async () => {
    const pages = readdirSync(PAGES).filter((f) => f.endsWith(".html"));
    const sizes = new Map<string, number>();
    expect(pages.length).toBeGreaterThan(40);
    const off: string[] = [];
    let estimated = 0;
    let real = 0;
    for (const page of pages) {
      const out = await snapshotOf(page);
      const nl = out.indexOf("\n");
      const est = Number(out.slice(0, nl));
      const o200k = countTokens(out.slice(nl + 1));
      estimated += est;
      real += o200k;
      sizes.set(page, o200k);
      const ratio = est / o200k;
      if (ratio > 1.1 || ratio < 0.9) off.push(`${page}: ~${est} vs ${o200k} (${ratio.toFixed(3)})`);
    }
    expect(off).toEqual([]);
    // The pages that build themselves with a script are measured built.
    expect(sizes.get("snap-big.html")).toBeGreaterThan(20_000);
    expect(estimated / real).toBeWithin(0.93, 1.07);
  }, 120_000);

  test("lines of a snapshot and CJK text", () => {
    // o200k: 17 and 4.
    expect(estimateTokens('  button "View" @e7 [in: row "Zhang San"]')).toBeWithin(15, 19);
    expect(estimateTokens("张三的订单")).toBeWithin(3, 6);
  });
});
