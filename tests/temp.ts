/**
 * A fresh private folder for a test world, under the temp folder the test runner gives (scripts/test.ts sets TMPDIR
 * to the run's own folder and fails the run on anything left in it), never a hard-coded /tmp.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
