/**
 * doctor's line on how the `bsk` command reaches this binary, shown only when npm's Node entry is on the way
 * (BSK_NODE_SHIM, set by that entry: scripts/release/npm/bsk.js). Every call then starts Node before bsk.
 */
import { NPM_PACKAGE } from "../../protocol/release.ts";
import type { Check } from "./doctor-report.ts";

type Env = Record<string, string | undefined>;

export function installCheck(
  env: Env,
  platform: string = process.platform,
  binary: string = process.execPath,
): { value: true; detail: string; status: Check["status"]; hint: string } | null {
  const entry = env.BSK_NODE_SHIM;
  if (!entry) return null;
  const detail = `the bsk command runs npm's Node entry ${entry}, which then runs ${binary}: every call starts Node first`;
  const hint =
    platform === "win32"
      ? `On Windows npm links commands through Node. For the fastest calls put ${binary.replace(/\\[^\\]*$/, "")} first on PATH.`
      : `npm did not run bsk's install script (--ignore-scripts, or npm's allowScripts): run npm rebuild -g ${NPM_PACKAGE}, which links the command to the binary.`;
  return { value: true, detail, status: "warn", hint };
}
