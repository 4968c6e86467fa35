import { describe, expect, test } from "bun:test";
import { COMMANDS } from "../../cli/commands-table.ts";
import { firstSentence, rootHelp } from "../../cli/help.ts";
import { HELP_GROUPS } from "../../cli/help-groups.ts";

describe("bsk --help", () => {
  test("every command is in exactly one group, and every grouped name is a command", () => {
    const names = COMMANDS.map((c) => c.words.join(" "));
    const grouped = HELP_GROUPS.flatMap((g) => g.commands);
    expect([...grouped].sort()).toEqual([...names].sort());
    expect(new Set(grouped).size).toBe(grouped.length);
  });

  test("it starts with what a first session needs, then the groups", () => {
    const text = rootHelp();
    const start = text.indexOf("Start here:");
    expect(start).toBeGreaterThan(0);
    const first = text
      .slice(start)
      .split("\n")
      .slice(1, 8)
      .map((l) => l.trim().split(/\s{2,}/)[0]);
    expect(first).toEqual(["session start", "navigate", "snapshot", "click", "fill", "screenshot", "session stop"]);
    for (const g of HELP_GROUPS) expect(text).toContain(`\n${g.title}:\n`);
  });

  test("a summary is never cut inside parentheses", () => {
    for (const c of COMMANDS) {
      const s = firstSentence(c.description);
      expect(s.split("(").length, `${c.words.join(" ")}: ${s}`).toBe(s.split(")").length);
    }
    expect(firstSentence("Drag one element onto another (real mouse input; steps). Then more.")).toBe(
      "Drag one element onto another (real mouse input; steps)",
    );
    expect(firstSentence("Use a preset, e.g. phone. Then.")).toBe("Use a preset, e.g. phone");
  });
});

describe("suggestions", () => {
  test("every synonym points at a real command", async () => {
    const { COMMAND_SYNONYMS } = await import("../../cli/suggest.ts");
    const names = new Set(COMMANDS.map((c) => c.words.join(" ")));
    for (const [word, target] of Object.entries(COMMAND_SYNONYMS)) {
      expect(names.has(target), `${word} → ${target}`).toBe(true);
      expect(names.has(word), `${word} is itself a command`).toBe(false);
    }
  });

  test("open and goto point at navigate, --fullpage at screenshot full-page, a near harness id at the harness", async () => {
    const { plan } = await import("../../cli/router.ts");
    const hintOf = (argv: string[]) => {
      try {
        plan(argv, {});
      } catch (e) {
        return (e as Error & { hint?: string }).hint ?? "";
      }
      throw new Error(`${argv.join(" ")} was planned`);
    };
    expect(hintOf(["tabs", "list"])).toContain("bsk tab?");
    expect(hintOf(["open", "https://example.com"])).toContain("bsk navigate?");
    expect(hintOf(["goto", "https://example.com"])).toContain("bsk navigate?");
    expect(hintOf(["screenshot", "--fullpage", "--session", "k7qm"])).toContain("bsk screenshot full-page?");
    const { mkdtempSync, rmSync } = await import("node:fs");
    const home = mkdtempSync(`${(await import("node:os")).tmpdir()}/bsk-help-`);
    let r: { exitCode: number; stderr: Buffer };
    try {
      r = Bun.spawnSync(["bun", "cli/main.ts", "install-skill", "--harness", "claude-cod"], {
        env: { ...process.env, HOME: home, BSK_HOME: `${home}/.bsk`, BSK_AUTO_START: "0" },
        stdout: "pipe",
        stderr: "pipe",
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    expect(r.exitCode).toBe(1);
    expect(r.stderr.toString()).toContain("Did you mean --harness claude-code?");
  });

  test("bsk mcp --help lists only the flags that do something there; the others are refused", async () => {
    const { commandHelp } = await import("../../cli/help.ts");
    const { findCommand } = await import("../../cli/router.ts");
    const { plan } = await import("../../cli/router.ts");
    const help = commandHelp(findCommand(["mcp"])!);
    const flags = [...help.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1]);
    expect(flags).toEqual(["--tools", "--help"]);
    expect(help).toContain("default: core");
    for (const flag of ["--json", "--session", "--timeout"]) {
      expect(() => plan(["mcp", flag, "x"], {})).toThrow(`unknown flag ${flag} for bsk mcp`);
    }
    expect(plan(["mcp", "--tools", "all"], {})).toMatchObject({ params: { tools: "all" } });
  });
});
