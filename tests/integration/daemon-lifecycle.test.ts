/** The daemon's life: one per home, files and permissions, idle exit, signals, restart with re-adoption. */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { runDaemon } from "../../daemon/main.ts";
import { ID_ALPHABET } from "../../daemon/session-ids.ts";
import { freePort, removeHome, startDaemon, startSession, TEST_ENV, tempHome, withDaemon } from "./harness.ts";
import { IpcClient } from "./ipc-client.ts";
import { Peer } from "./peer.ts";

const mode = (p: string) => statSync(p).mode & 0o777;

describe("single instance and files", () => {
  test("a second daemon on the same home reports already_running with the first one's info", async () => {
    await withDaemon({}, async (d) => {
      const second = await runDaemon({ home: d.home, port: await freePort(), env: TEST_ENV });
      expect(second).toEqual({ kind: "already_running", info: d.info });
      // The first one still serves.
      expect((await (await d.client()).call("system.status")).daemon.ws_port).toBe(d.port);
    });
  });

  test("state is private: dirs 0700, files and socket 0600; logs are JSON lines with each call", async () => {
    const d = await startDaemon();
    await d.peer();
    const c = await d.client();
    await startSession(c);
    await c.call("system.status", {}, { trace_id: "trace-log-1" });
    for (const dir of [d.home, d.paths.runDir, d.paths.logsDir, d.paths.stateDir]) expect(mode(dir)).toBe(0o700);
    for (const file of [d.paths.daemonJson, d.paths.lock, d.paths.socket, d.paths.sessions, d.paths.log]) expect(mode(file)).toBe(0o600);
    expect(JSON.parse(readFileSync(d.paths.daemonJson, "utf8"))).toEqual(d.info);
    expect(readFileSync(d.paths.lock, "utf8").trim()).toBe(String(process.pid));
    // Log lines are written in batches; a stopped daemon has flushed them all.
    await d.stop();
    const lines = readFileSync(d.paths.log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.every((l) => l.ts && l.level && l.msg)).toBe(true);
    expect(lines.find((l) => l.trace_id === "trace-log-1")).toMatchObject({ msg: "call", method: "system.status", outcome: "ok" });
    expect(lines.at(-1)).toMatchObject({ msg: "daemon stopped", reason: "system.shutdown" });
    removeHome(d.home);
  });

  test("a port already in use is an error naming the port, and leaves no lock behind", async () => {
    const blocker = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const home = tempHome();
    try {
      await expect(runDaemon({ home, port: blocker.port, env: TEST_ENV })).rejects.toThrow(`port ${blocker.port}`);
      expect(existsSync(`${home}/daemon.lock`)).toBe(false);
    } finally {
      blocker.stop(true);
      removeHome(home);
    }
  });
});

describe("one daemon per port", () => {
  test("a second daemon of another home on the same port fails naming the port and the first daemon; the extension side only ever reaches the first", async () => {
    const first = await startDaemon({ subprocess: true });
    const home = tempHome();
    try {
      const err = await runDaemon({ home, port: first.port, env: TEST_ENV }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({
        code: "unsupported",
        message: expect.stringContaining(
          `port ${first.port} on 127.0.0.1 is already in use by another bsk daemon (pid ${first.info.pid}, BSK_HOME ${first.home})`,
        ),
        data: { reason: "port_in_use", port: first.port, pid: first.info.pid, home: first.home },
      });
      expect((err as { hint: string }).hint).toContain(`kill ${first.info.pid}`);
      expect(existsSync(`${home}/daemon.lock`)).toBe(false);
      // Every link on the port is the first daemon's: each proves the first home's secret and is registered there.
      const peers = await Promise.all([0, 1, 2, 3].map(() => first.peer()));
      const c = await first.client();
      expect((await c.call("system.status")).browsers).toHaveLength(peers.length);
    } finally {
      await first.stop();
      removeHome(first.home);
      removeHome(home);
    }
  });
});

describe("stopping", () => {
  test("with no client, browser or session the daemon exits by itself and removes its files", async () => {
    const d = await startDaemon({ env: { BSK_DAEMON_IDLE_MS: "100" } });
    expect(await d.done).toEqual({ kind: "stopped" });
    for (const f of [d.paths.daemonJson, d.paths.lock, d.paths.socket]) expect(existsSync(f)).toBe(false);
    removeHome(d.home);
  });

  test("a connected client keeps the daemon from idling out", async () => {
    const d = await startDaemon({ env: { BSK_DAEMON_IDLE_MS: "100" } });
    const c = await IpcClient.connect(d.paths);
    let stopped = false;
    void d.done.then(() => (stopped = true));
    // Not a synchronisation: time passes to show the daemon stays.
    await Bun.sleep(300);
    expect(stopped).toBe(false);
    c.close();
    expect(await d.done).toEqual({ kind: "stopped" });
    removeHome(d.home);
  });

  test("SIGTERM ends live sessions with daemon_stopped, then the process exits cleanly", async () => {
    const d = await startDaemon({ subprocess: true });
    const peer = await d.peer();
    const c = await d.client();
    const s = await startSession(c);
    d.proc!.kill("SIGTERM");
    const close = await peer.closes.next((x) => x.params.session_id === s);
    expect(close.params.reason).toBe("daemon_stopped");
    expect(await d.done).toBe(0);
    for (const f of [d.paths.daemonJson, d.paths.lock, d.paths.socket]) expect(existsSync(f)).toBe(false);
    const saved = JSON.parse(readFileSync(d.paths.sessions, "utf8"));
    expect(saved.sessions).toEqual([]);
    expect(saved.ended.at(-1)).toMatchObject({ session_id: s, end_reason: "daemon_stopped" });
    removeHome(d.home);
  });
});

describe("restart", () => {
  test("a killed daemon's successor takes over the stale lock and re-adopts the live session; unknown ones end not_adoptable", async () => {
    const home = tempHome();
    const port = await freePort();
    const first = await startDaemon({ home, port, subprocess: true });
    const peer = await first.peer();
    const c1 = await first.client();
    const s = await startSession(c1);
    first.proc!.kill("SIGKILL");
    await first.done;
    await peer.closed;
    expect(existsSync(first.paths.lock)).toBe(true);

    const second = await startDaemon({ home, port, subprocess: true });
    try {
      expect(second.info.pid).not.toBe(first.info.pid);
      const c2 = await second.client();
      // Before the browser is back the session is still listed as live.
      expect((await c2.call("session.list")).sessions.find((x: any) => x.session_id === s)?.state).toBe("live");
      const stray = { session_id: "zzzz", window_id: 9, tab_ids: [90], current_tab_id: 90 };
      const back = await Peer.connect({
        port,
        secret: second.secret,
        instanceId: peer.instanceId,
        sessions: [...peer.sessions.values(), stray],
      });
      const hs = await back.handshake();
      expect(hs.result).toMatchObject({ adopted: [s], ended: [{ session_id: "zzzz", reason: "not_adoptable" }] });
      const call = c2.request("tab.list", { session_id: s });
      (await back.next("tab.list")).reply({ current_tab_id: peer.sessions.get(s)!.current_tab_id, tabs: [] });
      expect((await call).result).toBeDefined();
      back.close();
    } finally {
      await second.stop();
      removeHome(home);
    }
  });

  test("a session whose browser does not come back after a restart ends with browser_gone", async () => {
    const home = tempHome();
    const port = await freePort();
    const first = await startDaemon({ home, port, subprocess: true });
    const peer = await first.peer();
    const s = await startSession(await first.client());
    first.proc!.kill("SIGKILL");
    await first.done;
    peer.close();

    const second = await startDaemon({ home, port, env: { BSK_READOPT_WAIT_MS: "200" } });
    try {
      const c = await second.client();
      // The call waits for the browser; the re-adoption window closes first and ends the session.
      const r = await c.request("tab.list", { session_id: s });
      expect(r.error).toMatchObject({ code: "not_found", data: { reason: "session_ended", end_reason: "browser_gone" } });
    } finally {
      await second.stop();
      removeHome(home);
    }
  });

  test("session ids are never reused across restarts", async () => {
    const home = tempHome();
    // Every id but two was issued by earlier daemons of this home.
    const free = new Set(["k2m3", "x9y8"]);
    const issued: string[] = [];
    for (const a of ID_ALPHABET)
      for (const b of ID_ALPHABET)
        for (const c of ID_ALPHABET)
          for (const e of ID_ALPHABET) {
            const id = a + b + c + e;
            if (!free.has(id)) issued.push(id);
          }
    mkdirSync(`${home}/state`, { recursive: true, mode: 0o700 });
    writeFileSync(`${home}/state/sessions.json`, JSON.stringify({ version: 1, issued_ids: issued, sessions: [], ended: [] }), {
      mode: 0o600,
    });

    const port = await freePort();
    const first = await startDaemon({ home, port });
    await first.peer();
    const a = await startSession(await first.client());
    await first.stop();

    const second = await startDaemon({ home, port });
    try {
      await second.peer();
      const c = await second.client();
      const b = await startSession(c);
      expect([a, b].sort()).toEqual([...free].sort());
      const none = await c.request("session.start", {});
      expect(none.error?.code).toBe("unsupported");
    } finally {
      await second.stop();
      removeHome(home);
    }
  }, 20_000);
});
