/**
 * `bsk doctor --fix`: the repairs doctor can make itself, each said (`fixing: …`) before it is done. Without --fix
 * the same checks only report. A repair never ends live sessions: a daemon with sessions is left for the person.
 */
import { existsSync, readFileSync } from "node:fs";
import type { HomePaths } from "../../shared/home.ts";
import { AllowList } from "../../shared/allow-list.ts";
import {
  bskCommand,
  defaultRoots,
  launcherPath,
  launcherScript,
  manifestPath,
  registerNativeHost,
} from "../../shared/native-host-register.ts";
import { readJsonFile } from "../../shared/fs-util.ts";
import { WINDOWS_HOST_KEYS, windowsUnregistered } from "../../shared/native-host-windows.ts";
import { HARNESSES } from "../../skill/harnesses.ts";
import { status } from "../../skill/install.ts";
import type { Check } from "./doctor-report.ts";
import { installInto } from "./install-skill.ts";

type Env = Record<string, string | undefined>;
export type Say = (line: string) => void;
type CheckResult = { value: true; detail: string; status?: Check["status"]; hint?: string };

/** Browsers found in their default place whose native host manifest is not this home's current one. */
function unregistered(paths: HomePaths, env: Env): { found: string[]; missing: string[] } {
  const launcher = launcherPath(paths);
  const launcherCurrent = existsSync(launcher) && readFileSync(launcher, "utf8") === launcherScript(paths.home, bskCommand());
  const found = defaultRoots(env).filter((r) => existsSync(r.dir));
  const missing = found.filter((r) => {
    const manifest = readJsonFile(manifestPath(r.dir)) as { path?: unknown } | undefined;
    return !launcherCurrent || manifest?.path !== launcher;
  });
  return { found: found.map((r) => r.browser), missing: missing.map((r) => r.browser) };
}

/** Windows: every browser with a registry key (Chrome, Chromium, Edge, Brave) is checked; none is "found" by folder. */
function windowsUnregisteredNow(paths: HomePaths): { found: string[]; missing: string[] } {
  return { found: WINDOWS_HOST_KEYS.map((k) => k.browser), missing: windowsUnregistered(paths) };
}

/** The native messaging host (how the extension pairs by itself): registered for every browser found? */
export function nativeHostCheck(paths: HomePaths, env: Env, fix: Say | undefined): CheckResult {
  const before = process.platform === "win32" ? windowsUnregisteredNow(paths) : unregistered(paths, env);
  if (!before.found.length) {
    return {
      value: true,
      detail: "no Chromium-family browser found in its default place",
      status: "warn",
      hint: "For a browser started with --user-data-dir: bsk native install --profile-dir DIR",
    };
  }
  if (!before.missing.length) return { value: true, detail: `registered for ${before.found.join(", ")}` };
  if (!fix) {
    return {
      value: true,
      detail: `not registered for ${before.missing.join(", ")}`,
      status: "warn",
      hint: "Register it (the extension then pairs by itself): bsk native install, or bsk doctor --fix",
    };
  }
  fix(`fixing: registering the native messaging host for ${before.missing.join(", ")} (as bsk native install does)`);
  registerNativeHost({ paths, mode: "explicit", extensionIds: new AllowList(paths.config).all(), env });
  const after = process.platform === "win32" ? windowsUnregisteredNow(paths) : unregistered(paths, env);
  if (after.missing.length) {
    return {
      value: true,
      detail: `still not registered for ${after.missing.join(", ")}`,
      status: "warn",
      hint: "See bsk native install for what failed",
    };
  }
  return { value: true, detail: `registered for ${after.found.join(", ")} (fixed)` };
}

/** `--fix` for the skill: installs it where a harness is detected but has none, updates outdated copies; never edited ones. */
export function fixSkill(env: Env, fix: Say): string[] {
  const targets = HARNESSES.filter((h) => {
    const s = status(h, env);
    return s.state === "outdated" || (s.detected && s.state === "not_installed");
  });
  if (!targets.length) return [];
  fix(`fixing: installing the bsk skill into ${targets.map((h) => h.id).join(", ")} (as bsk install-skill does)`);
  const report = installInto(targets, env, false);
  return report.installed.map((i) => i.harness);
}
