#!/usr/bin/env node
/**
 * The Playwright half of the snapshot-size bench, run under Node (Playwright's own runtime):
 *   node scripts/bench/playwright-snapshot.mjs <chromium> <url>...
 * For each URL: page.ariaSnapshot({ mode: "ai" }) (what Playwright MCP gives an agent), the time it took, and the
 * page's actionable controls (actionable.mjs, every frame). Prints one JSON array on stdout.
 */
import { chromium } from "playwright-core";
import { COLLECT_ACTIONABLE } from "./actionable.mjs";

const [executablePath, ...urls] = process.argv.slice(2);
const args = ["--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"];
if (process.getuid?.() === 0) args.push("--no-sandbox");
const browser = await chromium.launch({ executablePath, headless: true, args });
const results = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  for (const url of urls) {
    try {
      await page.goto(url, { waitUntil: "load", timeout: 10_000 });
      const t0 = performance.now();
      const snapshot = await page.ariaSnapshot({ mode: "ai" });
      const ms = performance.now() - t0;
      const controls = [];
      for (const frame of page.frames()) controls.push(...(await frame.evaluate(COLLECT_ACTIONABLE).catch(() => [])));
      results.push({ url, snapshot, ms, controls });
    } catch (err) {
      results.push({ url, error: String(err?.message ?? err).split("\n")[0] });
    }
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(results));
