import { describe, expect, test } from "bun:test";
import { readableLogLine } from "../../cli/log-line.ts";
import { paint } from "../../cli/output.ts";

const ESC = "\x1b[";

function bsk(args: string[], env: Record<string, string>) {
  const r = Bun.spawnSync(["bun", "cli/main.ts", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", BSK_AUTO_START: "0", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, stderr: r.stderr.toString() };
}

describe("stderr", () => {
  test("only the error: and warning: words are coloured; hints and notes stay plain", () => {
    expect(paint("error: gone\nhint: do this\nnote: fine")).toBe(`${ESC}31merror:${ESC}0m gone\nhint: do this\nnote: fine`);
    expect(paint("warning: careful")).toBe(`${ESC}33mwarning:${ESC}0m careful`);
    expect(paint("the error: inside a line")).toBe("the error: inside a line");
  });

  test("FORCE_COLOR colours a pipe; no colour on a pipe by default, nor with NO_COLOR", () => {
    const forced = bsk(["open", "x"], { FORCE_COLOR: "1" });
    expect(forced.code).toBe(1);
    expect(forced.stderr.startsWith(`${ESC}31merror:${ESC}0m unknown command`)).toBe(true);
    expect(forced.stderr.split("\n")[1]).toBe("hint: Did you mean: bsk navigate? (bsk --help lists commands)");
    expect(bsk(["open", "x"], {}).stderr).not.toContain(ESC);
    expect(bsk(["open", "x"], { NO_COLOR: "1" }).stderr).not.toContain(ESC);
    expect(bsk(["open", "x"], { FORCE_COLOR: "0" }).stderr).not.toContain(ESC);
  });

  test("a terminal gets the colour (script(1) gives the call one)", () => {
    const r = Bun.spawnSync(["script", "-qc", "bun cli/main.ts open x", "/dev/null"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", BSK_AUTO_START: "0", TERM: "dumb" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(r.stdout.toString()).toContain(`${ESC}31merror:${ESC}0m unknown command`);
  });
});

describe("bsk logs", () => {
  test("a JSON log line reads as time, level, message and fields", () => {
    const line = JSON.stringify({
      ts: "2026-12-01T22:54:05.820Z",
      level: "warn",
      msg: "refused a connection from another user",
      peer_uid: 1001,
      why: "two words",
      timings: { daemon: 0.05 },
    });
    expect(readableLogLine(line)).toBe(
      '2026-12-01 22:54:05.820 warn  refused a connection from another user peer_uid=1001 why="two words" timings={"daemon":0.05}',
    );
    expect(readableLogLine("not json")).toBe("not json");
    expect(readableLogLine("{broken")).toBe("{broken");
  });
});
