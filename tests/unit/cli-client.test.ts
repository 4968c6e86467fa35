/**
 * The real CLI entry (`bun cli/main.ts …`, BSK_HOME a temp dir) against a fake daemon: request frames,
 * --json shapes, exit codes, Ctrl-C → cancel, dropped connections, no-daemon errors, logs, daemon status/stop.
 * Synchronisation is by frames the fake daemon has received, never by sleeping.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { call, type Connection } from "../../cli/daemon-client.ts";
import { fakeDaemon, makeHome as newHome, type FakeDaemon, type Frame } from "./cli-fake-daemon.ts";
import { outputOf } from "../run.ts";

const MAIN = join(import.meta.dir, "../../cli/main.ts");
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function makeHome(): string {
  const home = newHome();
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

function daemon(handler: Parameters<typeof fakeDaemon>[0]): FakeDaemon {
  const d = fakeDaemon(handler);
  cleanups.push(() => d.stop());
  return d;
}

function cleanEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), BSK_HOME: home, ...extra };
  delete env.BSK_SESSION;
  delete env.BSK_OWNER_PID;
  if (!("BSK_AUTO_START" in extra)) env.BSK_AUTO_START = "0";
  return env;
}

function spawnCli(args: string[], home: string, extra: Record<string, string> = {}) {
  return Bun.spawn([process.execPath, MAIN, ...args], { env: cleanEnv(home, extra), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
}

function run(args: string[], home: string, extra: Record<string, string> = {}) {
  return outputOf(spawnCli(args, home, extra));
}

const TABS = {
  current_tab_id: 12,
  tabs: [
    {
      tab_id: 12,
      window_id: 1,
      index: 0,
      url: "https://example.com/",
      title: "Example",
      active: true,
      owner: "session",
      ownership: "created",
    },
  ],
};

describe("no daemon", () => {
  test("BSK_AUTO_START=0: exits non-zero and names `bsk daemon start`", async () => {
    const home = makeHome();
    const r = await run(["session", "list"], home);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("error: the bsk daemon is not running");
    expect(r.stderr).toContain("bsk daemon start");
  });

  test("--json: the error object on stdout", async () => {
    const r = await run(["session", "list", "--json"], makeHome());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      ok: false,
      error: {
        code: "unsupported",
        message: "the bsk daemon is not running",
        hint: expect.stringContaining("bsk daemon start"),
        data: { reason: "daemon_not_running" },
        exit_code: 1,
      },
      trace_id: null,
    });
  });

  test("daemon status says not running (exit 1) and never starts one; daemon stop is fine", async () => {
    const home = makeHome();
    const s = await run(["daemon", "status"], home, { BSK_AUTO_START: "1" });
    expect(s.code).toBe(1);
    expect(s.stderr).toContain("not running");
    const stop = await run(["daemon", "stop"], home);
    expect(stop).toMatchObject({ code: 0, stdout: "not running\n" });
  });

  test("argument errors need no daemon: invalid_params, exit 1", async () => {
    const r = await run(["tab", "list", "--json"], makeHome());
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: "invalid_params",
      exit_code: 1,
      hint: expect.stringContaining("bsk session start"),
    });
  });
});

describe("with a daemon", () => {
  test("one request line with id, method, params and meta; --json success shape", async () => {
    const d = daemon((f) =>
      f.method === "tab.list" ? { result: TABS, meta: { trace_id: f.meta!.trace_id, timings: { daemon: 0.3 } } } : null,
    );
    const proc = spawnCli(["tab", "list", "--session", "s1", "--json"], d.home);
    const { stdout, code } = await outputOf(proc);
    expect(code).toBe(0);
    const f = d.frames[0]!;
    expect(d.frames).toHaveLength(1);
    expect(f).toEqual({
      id: `${proc.pid}-1`,
      method: "tab.list",
      params: { session_id: "s1" },
      meta: { trace_id: expect.stringMatching(/^[0-9a-f]{8}$/), timeout_ms: 30_000, client_pid: proc.pid },
    });
    const out = JSON.parse(stdout);
    expect(out).toEqual({ ok: true, result: TABS, trace_id: f.meta!.trace_id, timings: { daemon: 0.3, cli: expect.any(Number) } });
  });

  test("events and replies to other ids are ignored; human output one tab per line", async () => {
    let d: FakeDaemon;
    d = daemon((_f) => {
      d.broadcast(JSON.stringify({ event: "navigation", payload: { url: "x" } }));
      d.broadcast(JSON.stringify({ id: "someone-else", result: { nope: true } }));
      return { result: TABS };
    });
    const r = await run(["tab", "list", "--session", "s1"], d.home);
    expect(r).toEqual({ code: 0, stdout: "* 12  [session] Example — https://example.com/\n", stderr: "", json: undefined });
  });

  test("events --follow in human mode: each streamed event is its line, in order (the line's module loads on the first)", async () => {
    let d: FakeDaemon;
    const event = (seq: number, text: string) =>
      JSON.stringify({ event: "session.event", payload: { seq, ts: "2030-01-01T10:00:00.123Z", event: "console.log", data: { text } } });
    d = daemon(() => {
      for (let seq = 1; seq <= 3; seq++) d.broadcast(event(seq, `line ${seq}`));
      return { result: { events: [], next_since: 3, ended: true } };
    });
    const r = await run(["events", "--session", "s1", "--follow"], d.home);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '1  10:00:00.123  console.log  text="line 1"\n2  10:00:00.123  console.log  text="line 2"\n3  10:00:00.123  console.log  text="line 3"\n',
    );
    expect(r.stderr).toBe("-- next: --since 3\n-- the session has ended\n");
  });

  test("mutations carry an op id: --op-id, and it is echoed in --json", async () => {
    const d = daemon(() => ({ result: { tab_id: 1, type: "number", value: 2 } }));
    const r = await run(["evaluate", "1", "+", "1", "--session", "s1", "--op-id", "retry-7", "--timeout", "5s", "--json"], d.home);
    expect(r.code).toBe(0);
    expect(d.frames[0]).toMatchObject({
      method: "evaluate",
      params: { session_id: "s1", expression: "1 + 1" },
      meta: { op_id: "retry-7", timeout_ms: 5000 },
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, result: { value: 2 }, op_id: "retry-7" });
  });

  test("error replies: human error/hint on stderr with the table's exit code; --json on stdout", async () => {
    const d = daemon(() => ({ error: { code: "dialog_pending", message: "an alert is open: Hello", data: { type: "alert" } } }));
    const human = await run(["navigate", "https://a.example", "--session", "s1"], d.home);
    expect(human.code).toBe(6);
    expect(human.stdout).toBe("");
    expect(human.stderr).toBe(
      'error: an alert is open: Hello\nhint: Answer the page\'s dialog first: bsk dialog accept|dismiss.\ndetail: {"type":"alert"}\n',
    );
    const json = await run(["navigate", "https://a.example", "--session", "s1", "--json"], d.home);
    expect(json.code).toBe(6);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      error: { code: "dialog_pending", message: "an alert is open: Hello", data: { type: "alert" }, exit_code: 6 },
      trace_id: expect.any(String),
    });
  });

  test("large frames both ways arrive whole (partial socket writes, multi-byte text)", async () => {
    const word = "é€😀".repeat(10_000); // 90 KB of multi-byte UTF-8 per argument (an argument may hold 128 KB)
    const big = "ü".repeat(3_000_000);
    const d = daemon(() => ({ result: { tab_id: 1, type: "string", value: big } }));
    const r = await run(["evaluate", ...Array(12).fill(word), "--session", "s1"], d.home);
    expect(r.code).toBe(0);
    expect(d.frames[0]!.params!.expression).toBe(Array(12).fill(word).join(" "));
    expect(r.stdout).toBe(`${big}\n`);
  });

  test("Ctrl-C sends cancel on the same connection, prints the cancelled reply and exits 2", async () => {
    let release: (f: Frame) => void = () => {};
    const d = daemon((f) => {
      if (f.method === "evaluate")
        return new Promise((r) => (release = (c) => r({ error: { code: "cancelled", message: `cancelled by ${c.id}` } })));
      if (f.method === "cancel") {
        release(f);
        return { result: { cancelled: true } };
      }
      return null;
    });
    const proc = spawnCli(["evaluate", "new Promise(() => {})", "--session", "s1"], d.home);
    const out = outputOf(proc);
    const req = await d.received("evaluate");
    proc.kill("SIGINT");
    const cancel = await d.received("cancel");
    expect(cancel).toEqual({ id: `${req.id}.cancel`, method: "cancel", params: { id: req.id } });
    expect(await proc.exited).toBe(2);
    const { stdout, stderr } = await out;
    expect(stdout).toBe("");
    expect(stderr).toContain(`error: cancelled by ${req.id}.cancel`);
  });

  test("a second Ctrl-C exits at once, without the daemon's confirmation", async () => {
    const d = daemon(() => null);
    const proc = spawnCli(["wait-for", "--navigation", "--session", "s1", "--json"], d.home);
    const stdout = new Response(proc.stdout).text();
    await d.received("wait_for");
    proc.kill("SIGINT");
    await d.received("cancel");
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(2);
    expect(JSON.parse(await stdout).error).toMatchObject({ code: "cancelled", data: { confirmed: false } });
  });

  test("the daemon dropping the connection mid-call is protocol_error naming bsk logs (and the op id to retry with)", async () => {
    let d: FakeDaemon;
    d = daemon(() => {
      d.stop();
      return null;
    });
    const r = await run(["navigate", "https://a.example", "--session", "s1", "--op-id", "op-9"], d.home);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: the daemon closed the connection before replying");
    expect(r.stderr).toContain("bsk logs");
    expect(r.stderr).toContain("--op-id op-9");
  });

  test("daemon status and daemon stop talk to the running daemon", async () => {
    const status = {
      daemon: {
        pid: 1,
        version: "0.1.0",
        protocol_version: "1.0",
        started_at: "x",
        uptime_ms: 5000,
        home: "/h",
        socket: "/s",
        ws_port: 52800,
      },
      browsers: [],
      sessions: [],
    };
    const d = daemon((f) =>
      f.method === "system.status"
        ? { result: status }
        : f.method === "system.shutdown"
          ? { result: { pid: 2 ** 22 + 7, ended_sessions: ["a1"] } }
          : null,
    );
    const s = await run(["daemon", "status"], d.home);
    expect(s.code).toBe(0);
    expect(s.stdout).toContain("daemon: running (pid 1, up 5s)");
    const stop = await run(["daemon", "stop", "--json"], d.home);
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout).result).toEqual({
      stopped: true,
      running: false,
      pid: 2 ** 22 + 7,
      killed: false,
      ended_sessions: ["a1"],
    });
    expect(d.frames.map((f) => f.method)).toEqual(["system.status", "system.shutdown"]);
  });
});

describe("CLI-only commands without a daemon", () => {
  test("logs prints the last N lines, redacted; no log is not an error", async () => {
    const home = makeHome();
    expect(await run(["logs"], home)).toMatchObject({ code: 0, stdout: "", stderr: expect.stringContaining("no log yet") });
    mkdirSync(join(home, "logs"), { recursive: true });
    const lines = ['{"msg":"one"}', '{"msg":"fill","params":{"password":"hunter2"}}', "plain text line"];
    writeFileSync(join(home, "logs/daemon.log"), `${lines.join("\n")}\n`);
    const r = await run(["logs", "-n", "2"], home);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('fill params={"password":"[redacted]"}\nplain text line\n');
    const json = JSON.parse((await run(["logs", "--json", "-n", "1"], home)).stdout);
    expect(json).toMatchObject({ ok: true, result: { lines: ["plain text line"], path: join(home, "logs/daemon.log") } });
  });

  test("version, --version and help", async () => {
    const home = makeHome();
    expect((await run(["version"], home)).stdout).toMatch(/^bsk \d+\.\d+\.\d+ \(protocol \d+\.\d+\)\n$/);
    expect((await run(["--version"], home)).stdout).toMatch(/^bsk /);
    const help = await run(["tab", "list", "--help"], home);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--scope <owned|user|all>");
    const bad = await run(["tabs", "list"], home);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Did you mean: bsk tab?");
  });
});

describe("call() without a process", () => {
  function fakeConn(): Connection & { written: string[] } {
    const written: string[] = [];
    return { written, write: (l) => void written.push(l), onLine: () => {}, onClose: () => {}, close: () => {} };
  }

  test("gives up with timeout when nothing answers by giveUpMs", async () => {
    const conn = fakeConn();
    const reply = await call(conn, { id: "1-1", method: "status", params: {}, meta: {} }, { giveUpMs: 5 });
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(reply.error.code).toBe("timeout");
    expect(conn.written).toEqual(['{"id":"1-1","method":"status","params":{},"meta":{}}\n']);
  });

  test("the time spent starting the daemon counts against the call's timeout: the daemon is told only what is left", async () => {
    const conn = { ...fakeConn(), spentMs: 3_000 };
    const first = call(conn, { id: "1-1", method: "session.start", params: {}, meta: { timeout_ms: 10_000 } }, { giveUpMs: 15_000 });
    conn.onLine('{"id":"1-1","result":{}}');
    expect((await first).ok).toBe(true);
    expect(JSON.parse(conn.written[0]!).meta.timeout_ms).toBe(7_000);
    // Counted once: the connection's next call has its own whole budget.
    const next = call(conn, { id: "1-2", method: "status", params: {}, meta: { timeout_ms: 10_000 } }, { giveUpMs: 15_000 });
    conn.onLine('{"id":"1-2","result":{}}');
    await next;
    expect(JSON.parse(conn.written[1]!).meta.timeout_ms).toBe(10_000);
    // A start that took the whole budget leaves the call a timeout at once, not a fresh budget.
    const late = { ...fakeConn(), spentMs: 12_000 };
    const r = await call(late, { id: "2-1", method: "session.start", params: {}, meta: { timeout_ms: 10_000 } }, { giveUpMs: 15_000 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: "timeout", data: { timeout_ms: 10_000, stage: "daemon_start" } });
    expect(late.written).toEqual([]);
  });

  test("a protocol_error with id null answers our request", async () => {
    const conn = fakeConn();
    const p = call(conn, { id: "1-1", method: "status", params: {}, meta: {} }, { giveUpMs: 10_000 });
    conn.onLine("not json at all");
    conn.onLine('{"id":null,"error":{"code":"protocol_error","message":"frame is not valid JSON"}}');
    const reply = await p;
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(reply.error.message).toBe("frame is not valid JSON");
  });
});
