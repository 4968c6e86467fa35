/**
 * Installing the skill into harnesses and keeping installed copies current.
 *
 * Each install writes `<skills dir>/browser-skill/` plus `.bsk-baseline.json`: the SHA-256 of every file as bsk
 * wrote it. On upgrade (`bsk install-skill`, and the daemon at start-up) a copy whose files still match their
 * baseline is replaced by the bundled version; a copy the person edited is reported and left alone unless --force.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { SKILL_DIR_NAME, SKILL_FILES } from "./bundle.ts";
import { type Env, type Harness, HARNESSES } from "./harnesses.ts";
import { writeAtomic } from "../shared/atomic-file.ts";
import { APP_VERSION } from "../protocol/version.ts";

export const BASELINE_FILE = ".bsk-baseline.json";

export type InstallState = "not_installed" | "current" | "outdated" | "edited";

export interface HarnessStatus {
  harness: string;
  name: string;
  detected: boolean;
  path: string;
  state: InstallState;
  /** Files that differ from what bsk wrote (state edited). */
  edited_files?: string[];
}

interface Baseline {
  version: string;
  files: Record<string, string>;
}

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

export function skillPath(h: Harness, env: Env): string {
  return `${h.skillsDir(env)}/${SKILL_DIR_NAME}`;
}

function onPath(cmd: string, env: Env): boolean {
  return (env.PATH ?? "").split(":").some((dir) => dir && existsSync(`${dir}/${cmd}`));
}

export function detected(h: Harness, env: Env): boolean {
  return existsSync(h.skillsDir(env)) || h.markers(env).some((d) => existsSync(d)) || h.commands.some((c) => onPath(c, env));
}

function readBaseline(dir: string): Baseline | null {
  try {
    const b = JSON.parse(readFileSync(`${dir}/${BASELINE_FILE}`, "utf8")) as Baseline;
    return b && typeof b.files === "object" ? b : null;
  } catch {
    return null;
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

export function status(h: Harness, env: Env): HarnessStatus {
  const path = skillPath(h, env);
  const base: HarnessStatus = { harness: h.id, name: h.name, detected: detected(h, env), path, state: "not_installed" };
  if (!existsSync(`${path}/SKILL.md`)) return base;
  const baseline = readBaseline(path);
  // A copy without a baseline was not written by this install logic (hand-copied or edited): never overwrite silently.
  const edited = Object.keys(SKILL_FILES).filter((rel) => {
    const text = readText(`${path}/${rel}`);
    if (text === null) return false;
    return !baseline || baseline.files[rel] !== sha256(text);
  });
  if (edited.length) return { ...base, state: "edited", edited_files: edited };
  const current = Object.entries(SKILL_FILES).every(([rel, text]) => readText(`${path}/${rel}`) === text);
  return { ...base, state: current ? "current" : "outdated" };
}

function writeSkillFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeAtomic(path, text, { mode: 0o644, replace: true });
}

export function install(h: Harness, env: Env): void {
  const dir = skillPath(h, env);
  const files: Record<string, string> = {};
  for (const [rel, text] of Object.entries(SKILL_FILES)) {
    writeSkillFile(`${dir}/${rel}`, text);
    files[rel] = sha256(text);
  }
  writeSkillFile(`${dir}/${BASELINE_FILE}`, `${JSON.stringify({ version: APP_VERSION, files } satisfies Baseline, null, 2)}\n`);
}

/** Brings every installed, unedited copy up to date; reports edited ones. Used on upgrade (daemon start-up). */
export function syncInstalled(env: Env): { updated: string[]; edited: HarnessStatus[] } {
  const updated: string[] = [];
  const edited: HarnessStatus[] = [];
  for (const h of HARNESSES) {
    const s = status(h, env);
    if (s.state === "outdated") {
      install(h, env);
      updated.push(h.id);
    } else if (s.state === "edited") edited.push(s);
  }
  return { updated, edited };
}
