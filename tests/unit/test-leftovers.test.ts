/** The test runner's leftover check (scripts/test-leftovers.ts): anything left in the run's temp folder fails the run. */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkLeftovers, leftoverReport } from "../../scripts/test-leftovers.ts";
import { tempDir } from "../temp.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for the run's temp folder. */
function runDir(): string {
  const dir = tempDir("bsk-fake-run-");
  made.push(dir);
  return dir;
}

describe("the test run's temp folder", () => {
  test("left empty: the check passes and the folder is gone", () => {
    const dir = runDir();
    expect(checkLeftovers(dir)).toEqual({ passed: 1, failed: 0, skipped: 0, left: [] });
    expect(existsSync(dir)).toBe(false);
  });

  test("a default-named screenshot and a test world's folder left in it fail the check, listed; the folder still goes", () => {
    const dir = runDir();
    writeFileSync(join(dir, "bsk-screenshot-20261206-201500.png"), "png");
    mkdirSync(join(dir, "bsk-e2e-abc123/logs"), { recursive: true });
    writeFileSync(join(dir, "bsk-e2e-abc123/logs/daemon.log"), "…");
    const check = checkLeftovers(dir);
    expect(check).toEqual({ passed: 0, failed: 1, skipped: 0, left: ["bsk-e2e-abc123", "bsk-screenshot-20261206-201500.png"] });
    expect(existsSync(dir)).toBe(false);
    const report = leftoverReport(check.left);
    expect(report).toContain("  bsk-e2e-abc123\n  bsk-screenshot-20261206-201500.png");
    expect(report).toContain("bun scripts/test.ts tests/e2e/x.test.ts");
  });
});
