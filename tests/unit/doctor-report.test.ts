/** doctor's human report and its skill check (the round trip itself is in tests/e2e/doctor.test.ts). */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { renderDoctor } from "../../cli/commands/doctor-report.ts";
import { skillCheck } from "../../cli/commands/doctor-skill.ts";
import { findHarness } from "../../skill/harnesses.ts";
import { install, skillPath } from "../../skill/install.ts";

const homes: string[] = [];
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

/** A HOME where only Claude Code is detected (its ~/.claude exists) and nothing is on PATH. */
function claudeHome(): Record<string, string> {
  const home = mkdtempSync("/tmp/bsk-doctor-unit-");
  homes.push(home);
  mkdirSync(`${home}/.claude`);
  return { HOME: home, PATH: "" };
}

test("one line per check with its mark and time; hints under warnings and failures; a summary last", () => {
  const text = renderDoctor({
    ok: false,
    checks: [
      { name: "daemon", status: "ok", ms: 3, detail: "running" },
      { name: "skill", status: "warn", ms: 1, detail: "not installed", hint: "bsk install-skill" },
      { name: "browser", status: "fail", ms: 5002, detail: "no browser connected within 5 s", hint: "Load the extension" },
    ],
  });
  expect(text.split("\n")).toEqual([
    "✓ daemon      3 ms  running",
    "! skill       1 ms  not installed",
    "  hint: bsk install-skill",
    "✗ browser  5002 ms  no browser connected within 5 s",
    "  hint: Load the extension",
    "1 failed, 1 warning(s)",
  ]);
});

test("the skill check warns until the skill is installed and current, and names the harness to fix", () => {
  const env = claudeHome();
  expect(skillCheck(env)).toMatchObject({
    status: "warn",
    detail: "not installed (detected: claude-code)",
    hint: "Teach your agent bsk: bsk install-skill --harness claude-code (or --all)",
  });

  const claude = findHarness("claude-code")!;
  install(claude, env);
  expect(skillCheck(env)).toEqual({ value: true, detail: "current in claude-code" });

  writeFileSync(`${skillPath(claude, env)}/SKILL.md`, "my own notes\n");
  expect(skillCheck(env)).toMatchObject({ status: "warn", hint: "bsk install-skill --harness claude-code --force replaces it with this version's" });
});

test("with no harness found, the hint says where to look", () => {
  const home = mkdtempSync("/tmp/bsk-doctor-unit-");
  homes.push(home);
  expect(skillCheck({ HOME: home, PATH: "" })).toMatchObject({ status: "warn", detail: "not installed, and no agent harness detected" });
});
