/**
 * npm test (after npm run build): every suite, then one closing line `N passed, N failed` that CI reads.
 * Unit and integration tests run first; e2e tests need Chromium and the built dist/.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findChromium } from "./chromium.ts";
import { checkLeftovers, LEFT_CLEAN, leftoverReport } from "./test-leftovers.ts";

const root = join(import.meta.dir, "..");
const report = join(root, ".tmp/junit.xml");
mkdirSync(join(root, ".tmp"), { recursive: true });

/** Lint, format and types (CHECKS below) as more checks in the closing line (`npm run format` fixes the format). */
const LINT_IN_NPM_TEST = true;

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

/**
 * The run's own temp folder: every test world, daemon and browser the tests start inherits it as TMPDIR, so what a
 * test leaves behind is found here at the end (and counted as a failure) instead of piling up in the system's.
 */
const runTmp = mkdtempSync(join(tmpdir(), "bsk-test-run-"));
// Open to be passed through (not listed): the second local user of the attack tests reaches the folders made for it.
chmodSync(runTmp, 0o711);

/** Runs bun test on `paths`, writing a JUnit report; resolves with the exit code. */
async function runTests(paths: string[], outfile: string): Promise<number> {
  const proc = Bun.spawn(["bun", "test", ...paths, "--timeout=30000", "--reporter=junit", `--reporter-outfile=${outfile}`], {
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
    // Daemons the tests start must not register bsk's native messaging host with this machine's real browsers.
    env: { ...process.env, FORCE_COLOR: "0", BSK_NATIVE_HOST: "off", TMPDIR: runTmp },
  });
  return proc.exited;
}

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

const unescapeXml = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp|#(\d+));/g, (_, name: string, code?: string) =>
    code ? String.fromCharCode(Number(code)) : ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" } as Record<string, string>)[name]!,
  );

/** Per test file: how many passed, failed, were skipped; and each failed test as `file > group > name: its message`. */
function readReport(outfile: string): { byFile: Map<string, Counts>; failures: string[] } {
  const byFile = new Map<string, Counts>();
  const failures: string[] = [];
  if (!existsSync(outfile)) return { byFile, failures };
  const xml = readFileSync(outfile, "utf8");
  for (const suite of xml.matchAll(/<testsuite name="([^"]+)" file="[^"]*"[^>]*>([\s\S]*?)(?=<testsuite name="tests\/|<\/testsuites>)/g)) {
    const c: Counts = { passed: 0, failed: 0, skipped: 0 };
    for (const m of suite[2]!.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
      const body = m[3] ?? "";
      if (/<(failure|error)\b/.test(body)) {
        c.failed++;
        const attr = (name: string) => unescapeXml(m[1]!.match(new RegExp(`\\b${name}="([^"]*)"`))?.[1] ?? "");
        const why = unescapeXml(body.match(/<(?:failure|error)\b[^>]*?message="([^"]*)"/)?.[1] ?? "")
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean)
          .join(" · ")
          .slice(0, 300);
        failures.push(`${suite[1]} > ${[attr("classname"), attr("name")].filter(Boolean).join(" > ")}${why ? `: ${why}` : ""}`);
      } else if (/<skipped\b/.test(body)) c.skipped++;
      else c.passed++;
    }
    byFile.set(suite[1]!, c);
  }
  return { byFile, failures };
}

/** A whole-tree check counted as one test; only for the whole run (no filters). */
async function check(argv: string[], failHint: string): Promise<Counts> {
  const proc = Bun.spawn(argv, { cwd: root, stdout: "inherit", stderr: "inherit" });
  const ok = (await proc.exited) === 0;
  if (!ok) console.error(failHint);
  return { passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0 };
}

/**
 * `biome check .` (lint and format) and the type checks: the root project (protocol, cli, daemon, scripts, tests) and
 * the extension's own (every extension file, its handlers against the catalog's types), which the tests alone reach
 * only in part.
 */
const CHECKS: [name: string, argv: string[], failHint: string][] = [
  [
    "biome check",
    [join(root, "node_modules/.bin/biome"), "check", "."],
    "lint: biome check failed (npm run lint shows it; npm run format fixes the formatting)",
  ],
  ["tsc -p .", [join(root, "node_modules/.bin/tsc"), "--noEmit", "-p", "."], "typecheck: tsc -p . failed (npm run typecheck)"],
  [
    "tsc -p extension",
    [join(root, "node_modules/.bin/tsc"), "--noEmit", "-p", "extension"],
    "typecheck: tsc -p extension failed (npm run typecheck)",
  ],
];

const code = await runTests(suites, report);
const { byFile: results, failures } = readReport(report);
const { left, ...leftClean } = checkLeftovers(runTmp);
if (left.length) console.error(leftoverReport(left));
results.set(LEFT_CLEAN, leftClean);
if (LINT_IN_NPM_TEST && !filters.length) for (const [name, argv, hint] of CHECKS) results.set(name, await check(argv, hint));

let passed = 0;
let failed = 0;
let skipped = 0;
for (const c of results.values()) {
  passed += c.passed;
  failed += c.failed;
  skipped += c.skipped;
}
// Repeated last, above the closing line, so a CI log cut to its tail still names what failed.
if (failures.length) console.log(`\nfailed:\n${failures.map((f) => `  ${f}`).join("\n")}`);
for (const name of [...CHECKS.map(([n]) => n), LEFT_CLEAN]) if (results.get(name)?.failed) console.log(`failed: ${name}`);
// A crash outside any test (e.g. in beforeAll) must not look green.
if (code !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
