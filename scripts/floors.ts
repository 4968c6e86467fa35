/**
 * The import floors (.dependency-cruiser.cjs), checked: `npm run deps` prints every finding; npm test runs the same
 * check in tests/unit/floors.test.ts. There are no known violations: every rule holds.
 */
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const DEPCRUISE = join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
/** Every folder of ours that holds code; the rules say which may import which. */
export const CHECKED_FOLDERS = ["protocol", "shared", "skill", "daemon", "extension", "cli", "scripts", "tests"];

export interface FloorsReport {
  /** 0 when no rule of severity error is broken. */
  code: number;
  output: string;
}

export async function checkFloors(): Promise<FloorsReport> {
  // Run by bun: what the project runs on anyway.
  const argv = [process.execPath, DEPCRUISE, "--config", ".dependency-cruiser.cjs"];
  argv.push(...CHECKED_FOLDERS);
  const proc = Bun.spawn(argv, { cwd: root, stdout: "pipe", stderr: "pipe", env: { ...process.env, FORCE_COLOR: "0" } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, output: stdout + stderr };
}

if (import.meta.main) {
  const { code, output } = await checkFloors();
  process.stdout.write(output);
  process.exit(code);
}
