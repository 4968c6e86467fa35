import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { installInto } from "../../cli/commands/install-skill.ts";
import { SKILL_FILES } from "../../skill/bundle.ts";
import { findHarness, HARNESSES } from "../../skill/harnesses.ts";
import { BASELINE_FILE, skillPath, status, syncInstalled } from "../../skill/install.ts";
import { tempDir } from "../temp.ts";

const homes: string[] = [];
function tempHome(): Record<string, string> {
  const HOME = tempDir("bsk-skill-");
  homes.push(HOME);
  return { HOME, PATH: "" };
}
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

test("installs into every harness at its own skills directory, with references and a baseline", () => {
  const env = tempHome();
  const report = installInto(HARNESSES, env, false);
  expect(report.installed.map((i) => i.harness)).toEqual(HARNESSES.map((h) => h.id));
  for (const h of HARNESSES) {
    const dir = skillPath(h, env);
    for (const [rel, text] of Object.entries(SKILL_FILES)) expect(readFileSync(`${dir}/${rel}`, "utf8")).toBe(text);
    expect(existsSync(`${dir}/${BASELINE_FILE}`)).toBe(true);
    expect(status(h, env).state).toBe("current");
  }
  expect(skillPath(findHarness("claude")!, env)).toBe(`${env.HOME}/.claude/skills/browser-skill`);
  expect(skillPath(findHarness("codex")!, env)).toBe(`${env.HOME}/.agents/skills/browser-skill`);
  expect(skillPath(findHarness("pi")!, env)).toBe(`${env.HOME}/.pi/agent/skills/browser-skill`);
});

test("HERMES_HOME and KIMI_CODE_HOME move those harnesses' skills", () => {
  const env = { ...tempHome(), HERMES_HOME: "/opt/hermes", KIMI_CODE_HOME: "/opt/kimi/" };
  expect(skillPath(findHarness("hermes")!, env)).toBe("/opt/hermes/skills/browser-skill");
  expect(skillPath(findHarness("kimi")!, env)).toBe("/opt/kimi/skills/browser-skill");
});

test("detection looks at the harness's directories and commands", () => {
  const env = tempHome();
  const cursor = findHarness("cursor")!;
  expect(status(cursor, env).detected).toBe(false);
  mkdirSync(`${env.HOME}/.cursor`);
  expect(status(cursor, env).detected).toBe(true);
  const bin = `${env.HOME}/bin`;
  mkdirSync(bin);
  writeFileSync(`${bin}/codex`, "");
  expect(status(findHarness("codex")!, { ...env, PATH: bin }).detected).toBe(true);
});

test("an edited copy is kept and reported; --force overwrites it", () => {
  const env = tempHome();
  const claude = findHarness("claude-code")!;
  installInto([claude], env, false);
  const file = `${skillPath(claude, env)}/SKILL.md`;
  writeFileSync(file, `${readFileSync(file, "utf8")}\nmy own rule\n`);
  expect(status(claude, env)).toMatchObject({ state: "edited", edited_files: ["SKILL.md"] });

  const kept = installInto([claude], env, false);
  expect(kept.skipped).toEqual([{ harness: "claude-code", path: skillPath(claude, env), reason: "edited", edited_files: ["SKILL.md"] }]);
  expect(readFileSync(file, "utf8")).toContain("my own rule");
  expect(syncInstalled(env).edited.map((s) => s.harness)).toEqual(["claude-code"]);
  expect(readFileSync(file, "utf8")).toContain("my own rule");

  expect(installInto([claude], env, true).installed).toHaveLength(1);
  expect(readFileSync(file, "utf8")).toBe(SKILL_FILES["SKILL.md"]!);
});

test("an unedited copy of an older version is brought up to date on upgrade", () => {
  const env = tempHome();
  const codex = findHarness("codex")!;
  const dir = skillPath(codex, env);
  // What an older bsk wrote: its own text, with a baseline that matches it.
  const old = "---\nname: browser-skill\ndescription: old\n---\n";
  mkdirSync(`${dir}/references`, { recursive: true });
  writeFileSync(`${dir}/SKILL.md`, old);
  const hash = new Bun.CryptoHasher("sha256").update(old).digest("hex");
  writeFileSync(`${dir}/${BASELINE_FILE}`, JSON.stringify({ version: "0.0.1", files: { "SKILL.md": hash } }));
  expect(status(codex, env).state).toBe("outdated");
  expect(syncInstalled(env).updated).toEqual(["codex"]);
  expect(readFileSync(`${dir}/SKILL.md`, "utf8")).toBe(SKILL_FILES["SKILL.md"]!);
  expect(status(codex, env).state).toBe("current");
});

test("a hand-copied SKILL.md without a baseline counts as edited, never overwritten silently", () => {
  const env = tempHome();
  const pi = findHarness("pi")!;
  mkdirSync(skillPath(pi, env), { recursive: true });
  writeFileSync(`${skillPath(pi, env)}/SKILL.md`, "hand copy");
  expect(status(pi, env).state).toBe("edited");
  expect(syncInstalled(env).updated).toEqual([]);
});
