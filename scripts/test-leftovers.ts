/**
 * The check behind the test runner's private TMPDIR (scripts/test.ts): every test world removes what it made, also
 * when a test fails, so anything still in the run's temp folder when the tests end is a leak and fails the run.
 */
import { readdirSync, rmSync } from "node:fs";

export const LEFT_CLEAN = "temp folder left clean";

export interface LeftoverCheck {
  /** Counted as one check in the closing line: passed when nothing was left. */
  passed: number;
  failed: number;
  skipped: number;
  /** What was left at the top of the folder, sorted. */
  left: string[];
}

/**
 * Lists what the tests left in `runTmp`, then removes the folder either way. The tests have ended by now: whatever
 * appears after the look (a daemon a test did not wait for) is that test's leak, not the runner's to wait for.
 */
export function checkLeftovers(runTmp: string): LeftoverCheck {
  const left = readdirSync(runTmp).sort();
  // A process still writing as the folder goes makes one pass of rm meet ENOTEMPTY; the next pass removes the rest.
  rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
  return { passed: left.length ? 0 : 1, failed: left.length ? 1 : 0, skipped: 0, left };
}

/** The lines the runner prints for a failed check: what was left, and how to find the test that left it. */
export function leftoverReport(left: string[]): string {
  return [
    `left behind in the temp folder by the tests (${left.length}); each test world removes what it made, also when a test fails:`,
    ...left.map((f) => `  ${f}`),
    "hint: run the suspect files one at a time (bun scripts/test.ts tests/e2e/x.test.ts) to see which one leaves them",
  ].join("\n");
}
