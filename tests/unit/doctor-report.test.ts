/** doctor's human report and its skill check (the round trip itself is in tests/e2e/doctor.test.ts). */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { refusalSince } from "../../cli/commands/doctor-log.ts";
import { renderDoctor } from "../../cli/commands/doctor-report.ts";
import { skillCheck } from "../../cli/commands/doctor-skill.ts";
import { findHarness } from "../../skill/harnesses.ts";
import { install, skillPath } from "../../skill/install.ts";
import { tempDir } from "../temp.ts";

const homes: string[] = [];
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

/** A HOME where only Claude Code is detected (its ~/.claude exists) and nothing is on PATH. */
function claudeHome(): Record<string, string> {
  const home = tempDir("bsk-doctor-unit-");
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
  expect(skillCheck(env)).toMatchObject({
    status: "warn",
    hint: "bsk install-skill --harness claude-code --force replaces it with this version's",
  });
});

test("with no harness found, the hint says where to look", () => {
  const home = tempDir("bsk-doctor-unit-");
  homes.push(home);
  expect(skillCheck({ HOME: home, PATH: "" })).toMatchObject({ status: "warn", detail: "not installed, and no agent harness detected" });
});

describe("why no browser connected, from the daemon's log", () => {
  const line = (ts: string, level: string, msg: string, fields: Record<string, unknown> = {}) =>
    JSON.stringify({ ts, level, msg, ...fields });
  const start = "2026-11-29T10:00:00.000Z";

  test("the latest refusal since the daemon started becomes the failure, with its fix", () => {
    const log = [
      line("2026-11-29T09:00:00.000Z", "warn", "extension refused: protocol version", { extension_protocol: "1.0" }),
      line(start, "info", "daemon started"),
      line("2026-11-29T10:00:01.000Z", "warn", "extension refused: protocol version", { extension_protocol: "1.0" }),
      line("2026-11-29T10:00:02.000Z", "warn", "extension refused: it could not prove this install's secret", { extension: "x" }),
      "not json",
    ].join("\n");
    const e = refusalSince(log, start)!;
    expect(e.code).toBe("permission_denied");
    expect(e.hint).toContain("bsk daemon pair");
  });

  test("a protocol refusal says which side to update", () => {
    const e = refusalSince(
      line("2026-11-29T10:00:01.000Z", "warn", "extension refused: protocol version", { extension_protocol: "1.0" }),
      start,
    )!;
    expect(e.code).toBe("version_too_old");
    expect(e.data?.reason).toBe("extension_too_old");
  });

  test("an origin off the allow-list names the id to allow", () => {
    const origin = `chrome-extension://${"b".repeat(32)}`;
    const e = refusalSince(
      line("2026-11-29T10:00:01.000Z", "warn", "extension connection refused", { origin, reason: "not allowed" }),
      start,
    )!;
    expect(e.hint).toBe(`If that is your bsk extension, allow it: bsk daemon allow-extension ${"b".repeat(32)}`);
  });

  test("refusals from before this daemon started, and other warnings, are not the reason", () => {
    const log = [
      line("2026-11-29T09:59:59.000Z", "warn", "extension refused: it could not prove this install's secret"),
      line("2026-11-29T10:00:03.000Z", "warn", "something else"),
    ].join("\n");
    expect(refusalSince(log, start)).toBeUndefined();
    expect(refusalSince("", start)).toBeUndefined();
  });
});
