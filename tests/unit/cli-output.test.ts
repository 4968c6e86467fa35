/** Output: human mode (short, grep-friendly), --json (one object), errors (stderr / json), redaction. */
import { describe, expect, test } from "bun:test";
import { redactLine } from "../../cli/commands/logs.ts";
import { loadFormatters, REDACTED, redact, render, toOutline } from "../../cli/output.ts";
import { BskError } from "../../protocol/errors.ts";

// The see-and-act, history and trace formatters load on demand (cli/output.ts); these tests render them directly.
await loadFormatters();

const tab = (over: Record<string, unknown>) => ({
  tab_id: 1,
  window_id: 9,
  index: 0,
  url: "https://example.com/",
  title: "Example",
  active: true,
  owner: "session",
  ...over,
});

function human(format: string, result: unknown) {
  return render({ ok: true, format, result }, false);
}

describe("human mode", () => {
  test("session start prints the session id alone", () => {
    expect(human("session.start", { session_id: "k3x9", browser_instance_id: "b", window_id: 1, tab_id: 2 })).toEqual({
      stdout: "k3x9",
      stderr: undefined,
      exitCode: 0,
    });
  });

  test("tab list: one tab per line, current marked, owner tagged", () => {
    const r = human("tab.list", {
      current_tab_id: 12,
      tabs: [
        tab({ tab_id: 12, ownership: "created" }),
        tab({ tab_id: 13, title: "Mail", url: "https://mail.example/", ownership: "borrowed" }),
        tab({ tab_id: 14, title: "", url: "about:blank", owner: "other_session", owner_session_id: "zz12" }),
        tab({ tab_id: 15, title: "Bank", url: "https://bank.example/", owner: "person" }),
      ],
    });
    expect(r.stdout!.split("\n")).toEqual([
      "* 12  [session] Example — https://example.com/",
      "  13  [borrowed] Mail — https://mail.example/",
      "  14  [session zz12] about:blank",
      "  15  [person] Bank — https://bank.example/",
    ]);
    expect(human("tab.list", { current_tab_id: null, tabs: [] })).toMatchObject({ stdout: "", stderr: "no tabs" });
  });

  test("status: key: value lines, then browsers and sessions", () => {
    const r = human("system.status", {
      daemon: {
        pid: 42,
        version: "0.1.0",
        protocol_version: "1.0",
        started_at: "x",
        uptime_ms: 65_000,
        home: "/h",
        socket: "/h/run/daemon.sock",
        ws_port: 52800,
      },
      browsers: [
        {
          instance_id: "b1",
          label: "work",
          name: "Chromium",
          version: "156",
          extension_version: "0.1.0",
          protocol_version: "1.1",
          skew: true,
          connected_at: "x",
          sessions: 1,
        },
      ],
      sessions: [
        {
          session_id: "k3x9",
          browser_instance_id: "b1",
          state: "live",
          current_tab_id: 5,
          created_at: "x",
          last_used_at: "x",
          name: "task",
        },
      ],
    });
    const lines = r.stdout!.split("\n");
    expect(lines).toContain("daemon: running (pid 42, up 65s)");
    expect(lines).toContain("port: 52800");
    expect(lines).toContain("browsers: 1");
    expect(lines).toContain('  b1  "work"  Chromium 156  extension 0.1.0  protocol 1.1 (skew)  sessions 1');
    expect(lines).toContain("sessions: 1");
    expect(lines).toContain('  k3x9  live  tab 5  "task"  browser b1');
  });

  test("status: the CLI's loopback TCP port when the daemon has one, no line when it has none", () => {
    const daemon = {
      pid: 42,
      version: "0.1.0",
      protocol_version: "1.0",
      started_at: "x",
      uptime_ms: 1,
      home: "/h",
      socket: "/s",
      ws_port: 52800,
    };
    const withTcp = human("system.status", { daemon: { ...daemon, cli_port: 35901 }, browsers: [], sessions: [] }).stdout!.split("\n");
    expect(withTcp).toContain("port: 52800");
    expect(withTcp).toContain("cli port: 35901 (the CLI's loopback TCP link)");
    const without = human("system.status", { daemon, browsers: [], sessions: [] }).stdout!;
    expect(without).not.toContain("cli port");
  });

  test("navigate prints URL and status; evaluate prints strings raw, other values as JSON", () => {
    expect(human("navigate", { tab_id: 1, url: "https://a.example/", title: "A", status: 200, navigated: true }).stdout).toBe(
      "https://a.example/  200",
    );
    expect(human("navigate.back", { tab_id: 1, url: "https://a.example/", title: "A", status: null, navigated: false })).toMatchObject({
      stdout: "https://a.example/  -",
      stderr: "note: no navigation happened",
    });
    expect(human("evaluate", { tab_id: 1, type: "string", value: "Tiny Shop" }).stdout).toBe("Tiny Shop");
    expect(human("evaluate", { tab_id: 1, type: "object", value: { a: [1, "x"] } }).stdout).toBe('{"a":[1,"x"]}');
    expect(human("evaluate", { tab_id: 1, type: "number", value: 2 }).stdout).toBe("2");
    expect(human("evaluate", { tab_id: 1, type: "undefined", value: null }).stdout).toBe("undefined");
  });

  test("sessions, stop, tab close, daemon lifecycle", () => {
    expect(
      human("session.list", {
        sessions: [{ session_id: "a1", browser_instance_id: "b", state: "ended", end_reason: "idle", created_at: "x", last_used_at: "x" }],
      }).stdout,
    ).toBe("a1  ended (idle)  browser b");
    expect(
      human("session.stop", {
        stopped: ["a1"],
        failed: [{ session_id: "b2", code: "not_found", message: "no such session" }],
        closed_tab_ids: [],
        returned_tab_ids: [],
      }),
    ).toMatchObject({ stdout: "stopped a1", stderr: "failed b2: not_found: no such session" });
    expect(human("tab.close", { closed_tab_id: 4, current_tab_id: 3 }).stdout).toBe("closed 4  current 3");
    expect(human("daemon.stop", { stopped: false, running: false }).stdout).toBe("not running");
    expect(human("daemon.start", { already_running: false, pid: 9, socket: "/s", ws_port: 1, log: "/l" }).stdout).toContain(
      "daemon: started (pid 9)",
    );
  });

  test("unknown methods fall back to an outline", () => {
    expect(human("some.future_method", { a: 1, b: { c: "x", d: [1, { e: null }] }, f: [] }).stdout).toBe(
      ["a: 1", "b:", "  c: x", "  d:", "    - 1", "    -", "      e: null", "f: []"].join("\n"),
    );
    expect(toOutline("plain")).toBe("plain");
  });
});

describe("--json", () => {
  test("success: exactly one object with ok, result, trace_id, timings (op_id for mutations)", () => {
    const r = render(
      { ok: true, format: "evaluate", result: { value: 2 }, traceId: "abcd1234", timings: { daemon: 0.2, cli: 9.1 }, opId: "op1" },
      true,
    );
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBeUndefined();
    expect(r.stdout!.includes("\n")).toBe(false);
    expect(JSON.parse(r.stdout!)).toEqual({
      ok: true,
      result: { value: 2 },
      trace_id: "abcd1234",
      timings: { daemon: 0.2, cli: 9.1 },
      op_id: "op1",
    });
  });

  test("error: code, message, hint, data, exit_code on stdout; exit code from the table", () => {
    const err = new BskError("timeout", "navigation did not finish in 300ms", { data: { reason: "deadline" } });
    const r = render({ ok: false, error: err, traceId: "t1" }, true);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toBeUndefined();
    expect(JSON.parse(r.stdout!)).toEqual({
      ok: false,
      error: {
        code: "timeout",
        message: "navigation did not finish in 300ms",
        hint: "It did not finish in time; check the page state, then retry with a longer --timeout.",
        data: { reason: "deadline" },
        exit_code: 4,
      },
      trace_id: "t1",
    });
    const bare = JSON.parse(render({ ok: false, error: new BskError("cancelled", "x") }, true).stdout!);
    expect(bare.error.data).toEqual({});
    expect(bare.trace_id).toBeNull();
  });
});

describe("human errors", () => {
  test("error: and hint: on stderr, nothing on stdout, reason hint preferred, data shown redacted", () => {
    const r = render(
      {
        ok: false,
        error: new BskError("user_aborted", "the person took over", { data: { reason: "taken_over", password: "hunter2", epoch: 3 } }),
      },
      false,
    );
    expect(r.stdout).toBeUndefined();
    expect(r.exitCode).toBe(2);
    const lines = r.stderr!.split("\n");
    expect(lines[0]).toBe("error: the person took over");
    expect(lines[1]).toBe("hint: The person took over this session; wait until they click Resume, then re-observe.");
    expect(lines[2]).toBe(`detail: {"password":"${REDACTED}","epoch":3}`);
    expect(r.stderr).not.toContain("hunter2");
  });

  test("an explicit hint wins; unknown codes exit 2", () => {
    const e = new BskError("evaluation_failed", "ReferenceError: boom is not defined", { hint: "fix it" });
    expect(render({ ok: false, error: e }, false)).toEqual({
      stderr: "error: ReferenceError: boom is not defined\nhint: fix it",
      exitCode: 1,
    });
    const odd = BskError.from({ code: "no_such_code" as never, message: "?" });
    expect(render({ ok: false, error: odd }, false).exitCode).toBe(2);
  });
});

describe("redaction", () => {
  test("masks secret-looking keys at any depth, not look-alikes", () => {
    const input = {
      password: "p",
      db_password: "q",
      api: { token: "t", "csrf-token": "c", max_tokens: 5 },
      list: [{ secret: "s" }],
      value_file: "-",
      value: "v",
    };
    expect(redact(input)).toEqual({
      password: REDACTED,
      db_password: REDACTED,
      api: { token: REDACTED, "csrf-token": REDACTED, max_tokens: 5 },
      list: [{ secret: REDACTED }],
      value_file: REDACTED,
      value: "v",
    });
    expect(redact({ value: "typed" }, ["value"])).toEqual({ value: REDACTED });
    expect(input.password).toBe("p");
  });

  test("log lines: JSON is redacted, other text passes", () => {
    expect(JSON.parse(redactLine('{"msg":"fill","params":{"value_file":"/tmp/x","password":"pw"}}'))).toEqual({
      msg: "fill",
      params: { value_file: REDACTED, password: REDACTED },
    });
    expect(redactLine("panic: something")).toBe("panic: something");
  });
});
