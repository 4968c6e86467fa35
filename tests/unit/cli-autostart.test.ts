/**
 * Auto-start hygiene: the daemon is spawned in its own session with stdio on its log (appended, 0600), so a
 * harness reading the CLI's output to EOF is never held; two CLIs racing to start it both connect.
 * A stand-in daemon script plays the daemon (a unix server that exits 0 when another instance holds the lock).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { daemonArgv, daemonEnv } from "../../cli/autostart.ts";
import { isCompiled } from "../../shared/compiled.ts";
import { homePaths } from "../../shared/home.ts";
import { makeHome as newHome } from "./cli-fake-daemon.ts";

const CLI_DIR = join(import.meta.dir, "../../cli");
const pids: number[] = [];
const homes: string[] = [];
function makeHome(): string {
  const home = newHome();
  homes.push(home);
  return home;
}
afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const home of homes.splice(0)) {
    // A stand-in that served but whose starter failed before naming it is still listed in daemon.json.
    try {
      process.kill(JSON.parse(readFileSync(join(home, "daemon.json"), "utf8")).pid, "SIGKILL");
    } catch {
      // none, or already gone
    }
    rmSync(home, { recursive: true, force: true });
  }
});

function sidOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[3]);
}

/** A stand-in daemon: takes an exclusive lock file or exits 0 (like runDaemon's already_running), then serves. */
function writeStandIn(home: string): string {
  const path = join(home, "stand-in-daemon.ts");
  writeFileSync(
    path,
    `
import { openSync } from "node:fs";
import { fakeDaemon } from ${JSON.stringify(join(import.meta.dir, "cli-fake-daemon.ts"))};
const home = process.env.BSK_HOME!;
try { openSync(home + "/daemon.lock", "wx"); } catch { console.log("already running"); process.exit(0); }
console.log("stand-in daemon up, pid " + process.pid);
console.error("stderr goes to the log too");
fakeDaemon(() => ({ result: { pid: process.pid } }), home);
`,
  );
  return path;
}

/** A CLI-like process: starts the stand-in through cli/autostart.ts and waits until it serves. */
function writeStarter(home: string, standIn: string): string {
  const path = join(home, "starter.ts");
  writeFileSync(
    path,
    `
import { ensureHome, spawnDetached, waitForDaemon } from ${JSON.stringify(join(CLI_DIR, "autostart.ts"))};
import { call } from ${JSON.stringify(join(CLI_DIR, "daemon-client.ts"))};
import { homePaths } from ${JSON.stringify(join(import.meta.dir, "../../shared/home.ts"))};
const paths = homePaths(process.env.BSK_HOME!);
await ensureHome(paths);
const child = await spawnDetached([process.execPath, ${JSON.stringify(standIn)}], paths.log, process.env, paths.home);
const conn = await waitForDaemon(paths, { child });
const reply = await call(conn, { id: "1", method: "system.status", params: {}, meta: {} }, { giveUpMs: 10_000 });
console.log("connected, spawned " + child.pid + ", served by " + (reply.ok ? (reply.result as { pid: number }).pid : "none"));
process.exit(0);
`,
  );
  return path;
}

describe("how the daemon is launched", () => {
  test("a background daemon runs without the JIT unless BSK_DAEMON_JIT=1 or the caller set BUN_JSC_useJIT", () => {
    expect(daemonEnv({ PATH: "/bin" }, "/h")).toEqual({ PATH: "/bin", BSK_HOME: "/h", BUN_JSC_useJIT: "0" });
    expect(daemonEnv({ BSK_DAEMON_JIT: "1" }, "/h")).toEqual({ BSK_DAEMON_JIT: "1", BSK_HOME: "/h" });
    expect(daemonEnv({ BSK_DAEMON_JIT: "0" }, "/h").BUN_JSC_useJIT).toBe("0");
    expect(daemonEnv({ BUN_JSC_useJIT: "1" }, "/h").BUN_JSC_useJIT).toBe("1");
    // Only the exact "1" opts in: anything else, malformed or huge, leaves the daemon interpreted.
    for (const value of ["", "yes", "true", " 1", "1\n", "2", "1".repeat(100_000)])
      expect(daemonEnv({ BSK_DAEMON_JIT: value }, "/h").BUN_JSC_useJIT).toBe("0");
  });

  test("compiled binaries run themselves; source runs bun with cli/main.ts", () => {
    expect(isCompiled("/$bunfs/root/bsk")).toBe(true);
    expect(isCompiled("B:/~BUN/root/bsk.exe")).toBe(true);
    expect(isCompiled("/work/main/cli/main.ts")).toBe(false);
    expect(daemonArgv({ compiled: true, execPath: "/usr/bin/bsk" })).toEqual(["/usr/bin/bsk", "daemon", "start", "--foreground"]);
    expect(daemonArgv({ compiled: false, execPath: "/bin/bun", extra: ["--port", "5"] })).toEqual([
      "/bin/bun",
      join(CLI_DIR, "main.ts"),
      "daemon",
      "start",
      "--foreground",
      "--port",
      "5",
    ]);
  });
});

describe("detached start", () => {
  test("a harness reading the starter's pipes to EOF is not held; the daemon has its own session and logs to the file", async () => {
    const home = makeHome();
    const paths = homePaths(home);
    const standIn = writeStandIn(home);
    const starter = writeStarter(home, standIn);
    // Like a harness: through a shell, both pipes read to EOF.
    const proc = Bun.spawn(["sh", "-c", `"${process.execPath}" "${starter}"`], {
      env: { ...process.env, BSK_HOME: home },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    const pid = Number(/spawned (\d+)/.exec(out)![1]);
    pids.push(pid);
    expect(existsSync(`/proc/${pid}`)).toBe(true);
    expect(sidOf(pid)).toBe(pid);
    expect(sidOf(pid)).not.toBe(sidOf(process.pid));
    const log = readFileSync(paths.log, "utf8");
    expect(log).toContain(`stand-in daemon up, pid ${pid}`);
    expect(log).toContain("stderr goes to the log too");
    expect(statSync(paths.log).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
  });

  test("the log is appended to, never truncated", async () => {
    const home = makeHome();
    const paths = homePaths(home);
    const { ensureHome, spawnDetached } = await import("../../cli/autostart.ts");
    await ensureHome(paths);
    writeFileSync(paths.log, "earlier line\n");
    const child = await spawnDetached(["sh", "-c", "echo later line"], paths.log, process.env, paths.home);
    expect(await child.exited).toBe(0);
    expect(readFileSync(paths.log, "utf8")).toBe("earlier line\nlater line\n");
  });

  test("two CLIs racing to start the daemon both connect to the one that won", async () => {
    const home = makeHome();
    const standIn = writeStandIn(home);
    const starter = writeStarter(home, standIn);
    const env = { ...process.env, BSK_HOME: home };
    const runs = [0, 1].map(() => Bun.spawn([process.execPath, starter], { env, stdout: "pipe", stderr: "pipe" }));
    const results = await Promise.all(
      runs.map(async (p) => ({ code: await p.exited, out: await new Response(p.stdout).text(), err: await new Response(p.stderr).text() })),
    );
    const spawned: number[] = [];
    const served = new Set<number>();
    for (const r of results) {
      expect(r).toMatchObject({ code: 0, err: "" });
      const m = /spawned (\d+), served by (\d+)/.exec(r.out)!;
      spawned.push(Number(m[1]));
      served.add(Number(m[2]));
    }
    pids.push(...spawned);
    // Both were answered by the same daemon, which is one of the two spawned; the other stood down.
    expect(served.size).toBe(1);
    expect(spawned).toContain([...served][0]!);
    expect(readFileSync(homePaths(home).log, "utf8").match(/stand-in daemon up/g)).toHaveLength(1);
  });

  test("a daemon that fails to start is reported with the log to read", async () => {
    const home = makeHome();
    const paths = homePaths(home);
    const { ensureHome, spawnDetached, waitForDaemon } = await import("../../cli/autostart.ts");
    await ensureHome(paths);
    const child = await spawnDetached(["sh", "-c", "echo boom >&2; exit 3"], paths.log, process.env, paths.home);
    const err = await waitForDaemon(paths, { child }).catch((e) => e);
    expect(err).toMatchObject({
      code: "unsupported",
      message: expect.stringContaining("exited with code 3"),
      data: { reason: "daemon_start_failed" },
    });
    expect(err.hint).toContain(paths.log);
    expect(readFileSync(paths.log, "utf8")).toBe("boom\n");
  });
});

describe("daemon.starting: racing CLIs spawn one daemon", () => {
  test("the first CLI takes it; while it lives others wait; letting go removes it; a dead or old holder is stale", async () => {
    const { takeStarting } = await import("../../cli/autostart.ts");
    const paths = homePaths(makeHome());
    const release = await takeStarting(paths);
    expect(release).toBeFunction();
    expect(readFileSync(paths.starting, "utf8").trim()).toBe(String(process.pid));
    expect(await takeStarting(paths)).toBeNull();
    release!();
    expect(existsSync(paths.starting)).toBe(false);

    // A holder that is gone (a pid far above any live one) does not block the next start.
    writeFileSync(paths.starting, "4194303\n");
    const again = await takeStarting(paths);
    expect(again).toBeFunction();
    again!();

    // Nor does a live one that has held it longer than any start takes.
    writeFileSync(paths.starting, `${process.pid}\n`);
    const old = new Date(Date.now() - 60_000);
    const { utimesSync } = await import("node:fs");
    utimesSync(paths.starting, old, old);
    const late = await takeStarting(paths);
    expect(late).toBeFunction();
    late!();
  });

  test("letting go never removes another CLI's file", async () => {
    const { takeStarting } = await import("../../cli/autostart.ts");
    const paths = homePaths(makeHome());
    const release = await takeStarting(paths);
    writeFileSync(paths.starting, "1\n");
    release!();
    expect(readFileSync(paths.starting, "utf8")).toBe("1\n");
  });
});
