/** argv → {method, params, meta}: every CLI shape in the catalog, through the same plan() the CLI runs. */
import { describe, expect, test } from "bun:test";
import { BskError } from "../../protocol/errors.ts";
import { parseArgs } from "../../cli/args.ts";
import { plan } from "../../cli/router.ts";
import { GRACE_MS, type Ids, type Plan } from "../../cli/plan.ts";

const ids: Ids = { traceId: "0badcafe", opId: () => "op-fixed" };
const S = { BSK_SESSION: "s1" };

function call(argv: string[], env: Record<string, string> = S): Extract<Plan, { kind: "call" }> {
  const p = plan(argv, env, ids, 4242);
  if (p.kind !== "call") throw new Error(`expected a call, got ${p.kind}`);
  return p;
}

function fails(argv: string[], env: Record<string, string> = S): BskError {
  try {
    plan(argv, env, ids, 4242);
  } catch (e) {
    expect(e).toBeInstanceOf(BskError);
    return e as BskError;
  }
  throw new Error(`expected ${argv.join(" ")} to fail`);
}

describe("daemon-owned commands", () => {
  test("status, browsers, session list: no params, default meta", () => {
    expect(call(["status"])).toMatchObject({
      method: "system.status",
      params: {},
      meta: { trace_id: "0badcafe", timeout_ms: 30_000, client_pid: 4242 },
      json: false,
      giveUpMs: 30_000 + GRACE_MS,
    });
    expect(call(["status"]).meta.op_id).toBeUndefined();
    expect(call(["browsers"]).method).toBe("browser.list");
    expect(call(["session", "list", "--json"])).toMatchObject({ method: "session.list", params: {}, json: true });
  });

  test("session start: strings, numbers, durations, value flags, env fallback", () => {
    const p = call(
      [
        "session",
        "start",
        "--browser",
        "work",
        "--no-focus",
        "--width",
        "1280",
        "--height=900",
        "--name",
        "compare prices",
        "--lease",
        "2m",
      ],
      { BSK_OWNER_PID: "77" },
    );
    expect(p.method).toBe("session.start");
    expect(p.params).toEqual({
      browser: "work",
      focus: false,
      width: 1280,
      height: 900,
      name: "compare prices",
      lease_ms: 120_000,
      owner_pid: 77,
    });
    // the flag beats the environment
    expect(call(["session", "start", "--owner-pid", "5"], { BSK_OWNER_PID: "77" }).params.owner_pid).toBe(5);
    // no session needed, even with none in the environment
    expect(call(["session", "start"], {}).params).toEqual({});
  });

  test("session stop: positional, --session, BSK_SESSION, --all", () => {
    expect(call(["session", "stop", "abcd"], {}).params).toEqual({ session_id: "abcd" });
    expect(call(["session", "stop", "--session", "abcd"], {}).params).toEqual({ session_id: "abcd" });
    expect(call(["session", "stop"], { BSK_SESSION: "envs" }).params).toEqual({ session_id: "envs" });
    expect(call(["session", "stop", "abcd"], { BSK_SESSION: "envs" }).params).toEqual({ session_id: "abcd" });
    expect(call(["session", "stop", "--all"], {}).params).toEqual({ all: true });
    expect(fails(["session", "stop", "a", "--session", "b"], {}).message).toContain("twice");
  });

  test("daemon allow-extension takes the id as a positional", () => {
    expect(call(["daemon", "allow-extension", "a".repeat(32)])).toMatchObject({
      method: "system.allow_extension",
      params: { extension_id: "a".repeat(32) },
    });
    expect(fails(["daemon", "allow-extension"]).message).toContain("missing <extension_id>");
  });
});

describe("session- and tab-scoped commands", () => {
  test("--session, else BSK_SESSION; none at all is invalid_params naming session start", () => {
    expect(call(["tab", "list", "--session", "abcd"], {}).params).toEqual({ session_id: "abcd" });
    expect(call(["tab", "list"]).params).toEqual({ session_id: "s1" });
    expect(call(["tab", "list", "--session", "x"], S).params.session_id).toBe("x");
    const e = fails(["tab", "list"], {});
    expect(e.code).toBe("invalid_params");
    expect(e.hint).toContain("bsk session start");
    expect(e.hint).toContain("--session");
  });

  test("enum flags are validated against their options", () => {
    expect(call(["tab", "list", "--scope", "all"]).params).toEqual({ session_id: "s1", scope: "all" });
    const e = fails(["tab", "list", "--scope", "everything"]);
    expect(e.code).toBe("invalid_params");
    expect(e.message).toContain("owned, user, all");
    expect(fails(["tab", "list", "--scope", "al"]).hint).toContain("all");
  });

  test("tab create: optional positional or --url, boolean flag", () => {
    expect(call(["tab", "create"]).params).toEqual({ session_id: "s1" });
    expect(call(["tab", "create", "https://a.example"]).params).toEqual({ session_id: "s1", url: "https://a.example" });
    expect(call(["tab", "create", "--url", "https://a.example", "--background"]).params).toEqual({
      session_id: "s1",
      url: "https://a.example",
      background: true,
    });
    expect(call(["tab", "create"]).meta.op_id).toBe("op-fixed");
  });

  test("tab select / close: number positionals, or --tab", () => {
    expect(call(["tab", "select", "123"]).params).toEqual({ session_id: "s1", tab_id: 123 });
    expect(call(["tab", "select", "--tab", "123"]).params).toEqual({ session_id: "s1", tab_id: 123 });
    expect(fails(["tab", "select"]).message).toContain("missing <tab_id>");
    expect(fails(["tab", "select", "abc"]).message).toContain("expects a number");
    expect(call(["tab", "close"]).params).toEqual({ session_id: "s1" });
    expect(call(["tab", "close", "9"]).params).toEqual({ session_id: "s1", tab_id: 9 });
  });

  test("navigate <url> vs navigate back|forward", () => {
    const nav = call(["navigate", "https://example.com", "--wait-until", "networkidle", "--tab", "7"]);
    expect(nav.method).toBe("navigate");
    expect(nav.params).toEqual({ session_id: "s1", url: "https://example.com", wait_until: "networkidle", tab_id: 7 });
    expect(call(["navigate", "back"])).toMatchObject({ method: "navigate.back", params: { session_id: "s1" } });
    expect(call(["navigate", "forward", "--wait-until", "commit"])).toMatchObject({
      method: "navigate.forward",
      params: { session_id: "s1", wait_until: "commit" },
    });
    // the URL may come after flags too
    expect(call(["navigate", "--session", "z", "back.html"]).params).toEqual({ session_id: "z", url: "back.html" });
    expect(fails(["navigate"]).message).toContain("missing <url>");
    expect(fails(["navigate", "back", "extra"]).message).toContain("unexpected argument");
  });

  test("reload and wait-for", () => {
    expect(call(["reload", "--hard"]).params).toEqual({ session_id: "s1", hard: true });
    expect(call(["reload", "--hard=false"]).params).toEqual({ session_id: "s1", hard: false });
    const w = call(["wait-for", "--url", "*/dashboard*", "--timeout", "20s"]);
    expect(w).toMatchObject({ method: "wait_for", params: { session_id: "s1", url: "*/dashboard*" }, meta: { timeout_ms: 20_000 } });
    expect(w.giveUpMs).toBe(20_000 + GRACE_MS);
    expect(call(["wait-for", "--navigation"]).params).toEqual({ session_id: "s1", navigation: true });
  });

  test("evaluate: the rest of the words form the expression; --no-await; flags anywhere; -- ends flags", () => {
    expect(call(["evaluate", "document.title"]).params).toEqual({ session_id: "s1", expression: "document.title" });
    expect(call(["evaluate", "1", "+", "1", "--session", "q"]).params).toEqual({ session_id: "q", expression: "1 + 1" });
    expect(call(["evaluate", "fetch('/x').then(r => r.status)", "--no-await"]).params).toEqual({
      session_id: "s1",
      expression: "fetch('/x').then(r => r.status)",
      await_promise: false,
    });
    expect(call(["evaluate", "-1"]).params.expression).toBe("-1");
    expect(call(["evaluate", "--", "--x", "--json"]).params.expression).toBe("--x --json");
    expect(call(["evaluate", "--", "--x"]).json).toBe(false);
  });
});

describe("meta", () => {
  test("--timeout → meta.timeout_ms; bad durations are invalid_params", () => {
    expect(call(["status", "--timeout", "500ms"]).meta.timeout_ms).toBe(500);
    expect(call(["status", "--timeout=5m"]).meta.timeout_ms).toBe(300_000);
    // A bare number was milliseconds (`--timeout 5` gave up after 5 ms): a unit is required, with a hint.
    const bare = fails(["status", "--timeout", "5"]);
    expect(bare.code).toBe("invalid_params");
    expect(bare.message).toBe('--timeout needs a unit, got "5"');
    expect(bare.hint).toContain("--timeout 5s");
    expect(fails(["type", "abc", "--delay", "20"]).message).toContain("--delay needs a unit");
    expect(fails(["wait", "500"]).message).toContain("needs a unit");
    expect(fails(["status", "--timeout", "soon"]).message).toContain("duration");
    expect(fails(["status", "--timeout", "0s"]).code).toBe("invalid_params");
    expect(fails(["status", "--timeout"]).message).toContain("needs a value");
  });

  test("BrowserMutation methods carry an op id: --op-id, else a fresh one; others never", () => {
    expect(call(["navigate", "https://x.example", "--op-id", "retry-1"]).meta.op_id).toBe("retry-1");
    expect(call(["evaluate", "1"]).meta.op_id).toBe("op-fixed");
    expect(call(["tab", "list"]).meta.op_id).toBeUndefined();
    expect(fails(["tab", "list", "--op-id", "x"]).message).toContain("unknown flag --op-id");
    expect(fails(["status", "--op-id", "x"]).message).toContain("unknown flag --op-id");
  });

  test("global flags may come before the command words", () => {
    expect(call(["--json", "tab", "list"])).toMatchObject({ method: "tab.list", json: true });
    expect(call(["--session", "pre", "tab", "list"]).params.session_id).toBe("pre");
    expect(call(["tab", "--timeout", "2s", "list"]).meta.timeout_ms).toBe(2000);
  });

  test("real random ids: 8 hex trace id, uuid op id, <pid>-style client pid", () => {
    const p = plan(["evaluate", "1"], S);
    if (p.kind !== "call") throw new Error("not a call");
    expect(p.meta.trace_id).toMatch(/^[0-9a-f]{8}$/);
    expect(p.meta.op_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.meta.client_pid).toBe(process.pid);
  });
});

describe("errors, help and CLI-only commands", () => {
  test("unknown commands and flags say what was meant", () => {
    const a = fails(["sesion", "list"]);
    expect(a.code).toBe("invalid_params");
    expect(a.hint).toContain("bsk session");
    expect(fails(["tab", "lst"]).hint).toContain("bsk tab list");
    expect(fails(["tab"]).message).toContain("list, create, select, close");
    expect(fails(["tab", "list", "--scop", "all"]).hint).toContain("--scope");
    expect(fails(["tab", "list", "-x"]).message).toContain("unknown flag -x");
  });

  test("help at every level, version", () => {
    expect(plan([], {})).toEqual({ kind: "help", words: [] });
    expect(plan(["--help"], {})).toEqual({ kind: "help", words: [] });
    expect(plan(["tab", "--help"], {})).toEqual({ kind: "help", words: ["tab"] });
    expect(plan(["tab", "list", "-h"], {})).toEqual({ kind: "help", words: ["tab", "list"] });
    expect(plan(["help", "navigate", "back"], {})).toEqual({ kind: "help", words: ["navigate", "back"] });
    expect(plan(["evaluate", "--", "--help"], S)).toMatchObject({ kind: "call" });
    expect(plan(["--version"], {})).toEqual({ kind: "version", json: false });
    expect(plan(["version", "--json"], {})).toMatchObject({ kind: "local", action: "version", json: true });
  });

  test("daemon start|stop|status and logs are CLI-only", () => {
    expect(plan(["daemon", "start", "--foreground", "--port", "52801", "--session-idle", "30s", "--daemon-idle", "1h"], {})).toMatchObject({
      kind: "local",
      action: "daemon.start",
      params: { foreground: true, port: 52801, session_idle_ms: 30_000, daemon_idle_ms: 3_600_000 },
    });
    expect(plan(["daemon", "start"], { BSK_PORT: "52900" })).toMatchObject({ params: { port: 52900 } });
    expect(plan(["daemon", "stop"], {})).toMatchObject({ kind: "local", action: "daemon.stop" });
    expect(plan(["daemon", "status", "--json"], {})).toMatchObject({ kind: "local", action: "daemon.status", json: true });
    expect(plan(["logs", "-f", "-n", "5"], {})).toMatchObject({ kind: "local", action: "logs", params: { follow: true, lines: 5 } });
    expect(plan(["logs", "-n20"], {})).toMatchObject({ params: { lines: 20 } });
    expect(plan(["logs", "--lines=3"], {})).toMatchObject({ params: { lines: 3 } });
  });
});

describe("flag types the catalog may use (synthetic shape)", () => {
  const cmd = {
    words: ["upload"],
    description: "Synthetic command exercising every flag type.",
    scope: "tab" as const,
    method: "upload",
    effect: "BrowserMutation" as const,
    examples: [],
    positionals: [
      { param: "target", description: "Target", required: true },
      { param: "rest", description: "Rest", rest: true },
    ],
    flags: {
      file: { param: "files", type: "list" as const, alias: "F", description: "File (repeatable)" },
      mode: { param: "mode", type: "enum" as const, options: ["input", "drop"], description: "Mode" },
      wait: { param: "wait_ms", type: "duration" as const, description: "Wait" },
      count: { param: "count", type: "number" as const, env: "X_COUNT", description: "Count" },
      quiet: { param: "verbose", type: "boolean" as const, value: false, description: "Fixed value" },
      tag: { param: "tags", type: "list" as const, env: "X_TAG", description: "Tags" },
    },
  };

  test("list flags repeat; enum, duration, number, value; env fallback; rest positional", () => {
    const p = parseArgs(
      cmd,
      ["@e3", "-F", "a.txt", "--file", "b.txt", "--file=c d.txt", "--mode", "drop", "--wait", "1.5s", "--quiet", "x", "y"],
      {
        X_COUNT: "3",
        X_TAG: "t",
        BSK_SESSION: "s",
      },
    );
    expect(p.params).toEqual({
      session_id: "s",
      target: "@e3",
      rest: "x y",
      files: ["a.txt", "b.txt", "c d.txt"],
      mode: "drop",
      wait_ms: 1500,
      verbose: false,
      count: 3,
      tags: ["t"],
    });
    expect(() => parseArgs(cmd, ["@e1", "--count", "x"], { BSK_SESSION: "s" })).toThrow("expects a number");
    expect(() => parseArgs(cmd, ["@e1"], { BSK_SESSION: "s", X_COUNT: "many" })).toThrow("X_COUNT");
    expect(() => parseArgs(cmd, ["@e1", "--mode", "paste"], { BSK_SESSION: "s" })).toThrow("input, drop");
    expect(() => parseArgs(cmd, ["@e1", "--file"], { BSK_SESSION: "s" })).toThrow("needs a value");
  });
});

describe("--session on every command (each command may run in a shell of its own)", () => {
  const { COMMANDS: ALL } = require("../../cli/commands-table.ts") as typeof import("../../cli/commands-table.ts");
  const { commandName } = require("../../cli/command-spec.ts") as typeof import("../../cli/command-spec.ts");
  // bsk mcp takes only its own flags: an MCP client's configuration runs it, not an agent's habits (cli-help.test.ts).
  const COMMANDS = ALL.filter((c) => !c.ownFlagsOnly);
  /** The words and any required positional, so the command parses. */
  const minimal = (words: string[], cmd: (typeof COMMANDS)[number]): string[] => [
    ...words,
    ...cmd.positionals
      .filter((p) => p.required)
      .map((p) => (p.type === "duration" ? "1s" : p.type === "number" ? "7" : p.param === "shell" ? "bash" : "@e1")),
  ];

  test("accepted by every command; sent only where it names or filters a session", () => {
    const sends = new Set<string>();
    for (const cmd of COMMANDS) {
      const p = plan([...minimal(cmd.words, cmd), "--session", "k7qm"], {}, ids, 4242);
      if (p.kind === "help" || p.kind === "version") continue;
      if (p.params.session_id === "k7qm") sends.add(commandName(cmd));
      else expect(cmd.scope).toBe("none");
    }
    for (const name of ["bsk session list", "bsk wait", "bsk ops", "bsk session stop", "bsk snapshot", "bsk tab list"])
      expect(sends).toContain(name);
    for (const name of ["bsk status", "bsk doctor", "bsk session start", "bsk browsers", "bsk daemon status", "bsk version"])
      expect(sends).not.toContain(name);
  });

  test("an empty --session is refused in words on every command, never sent for the daemon to reject", () => {
    for (const cmd of COMMANDS) {
      for (const form of [["--session", ""], ["--session=  "]]) {
        const e = fails([...minimal(cmd.words, cmd), ...form]);
        expect(e.code).toBe("invalid_params");
        expect(e.message).toContain("--session is empty");
        expect(e.hint).toContain("session start printed");
      }
    }
  });

  test("status ignores BSK_SESSION; wait takes it; session list filters only when asked", () => {
    expect(call(["status"], { BSK_SESSION: "k7qm" }).params).toEqual({});
    expect(call(["wait", "2s"], { BSK_SESSION: "k7qm" }).params).toEqual({ duration_ms: 2000, session_id: "k7qm" });
    expect(call(["session", "list"], { BSK_SESSION: "k7qm" }).params).toEqual({});
    expect(call(["session", "list", "--session", "k7qm"], {}).params).toEqual({ session_id: "k7qm" });
  });

  test("the missing-session hint shows the id written out, not a shell variable", () => {
    const e = fails(["snapshot"], {});
    expect(e.hint).toContain("--session k7qm");
    expect(e.hint).not.toContain("$S");
  });
});
