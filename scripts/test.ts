/**
 * npm test (after npm run build): every suite, then one closing line `N passed, N failed` that CI reads.
 * Unit and integration tests run first; e2e tests need Chromium and the built dist/.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { findChromium } from "./chromium.ts";

const root = join(import.meta.dir, "..");
const report = join(root, ".tmp/junit.xml");
mkdirSync(join(root, ".tmp"), { recursive: true });

const filters = process.argv.slice(2);
const suites = filters.length ? filters : ["tests/unit", "tests/integration", "tests/e2e"];
if (suites.some((s) => s.includes("e2e"))) {
  if (!findChromium()) {
    console.error("error: Chromium is needed for the e2e tests\nhint: apt-get install -y chromium (or set CHROMIUM=/path/to/chrome)");
    process.exit(1);
  }
  if (!existsSync(join(root, "dist/bsk")) || !existsSync(join(root, "dist/extension/manifest.json"))) {
    console.error("error: dist/ is missing\nhint: npm run build");
    process.exit(1);
  }
}

const proc = Bun.spawn(["bun", "test", ...suites, "--timeout=30000", "--reporter=junit", `--reporter-outfile=${report}`], {
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
  // Daemons the tests start must not register bsk's native messaging host with this machine's real browsers.
  env: { ...process.env, FORCE_COLOR: "0", BSK_NATIVE_HOST: "off" },
});
const code = await proc.exited;

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const xml = readFileSync(report, "utf8");
  for (const m of xml.matchAll(/<testcase\b[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = m[2] ?? "";
    if (/<(failure|error)\b/.test(body)) failed++;
    else if (/<skipped\b/.test(body)) skipped++;
    else passed++;
  }
}
// A crash outside any test (e.g. in beforeAll) must not look green.
if (code !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
