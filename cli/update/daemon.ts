/**
 * The daemon around an update: who is running (and with which sessions), stopping it, and starting a given
 * binary's daemon and proving it serves `system.status` with the expected version within a deadline.
 */
import type { HomePaths } from "../../shared/home.ts";
import { BskError } from "../../protocol/errors.ts";
import { daemonArgv, daemonEnv, ensureHome, spawnDetached, waitForDaemon } from "../autostart.ts";
import { call, nextRequestId, tryConnect, type Connection } from "../daemon-client.ts";

type Env = Record<string, string | undefined>;

export interface RunningDaemon {
  pid: number;
  port: number;
  version: string;
  sessions: string[];
}

interface StatusResult {
  daemon: { pid: number; version: string; ws_port: number };
  sessions: { session_id: string }[];
}

async function status(conn: Connection, timeoutMs = 5_000): Promise<StatusResult> {
  const reply = await call(
    conn,
    {
      id: nextRequestId(),
      method: "system.status",
      params: {},
      meta: { trace_id: "update", timeout_ms: timeoutMs, client_pid: process.pid },
    },
    { giveUpMs: timeoutMs + 1_000 },
  );
  conn.close();
  if (!reply.ok) throw BskError.from(reply.error);
  return reply.result as StatusResult;
}

/** The daemon serving this home, or null when none answers. */
export async function runningDaemon(paths: HomePaths): Promise<RunningDaemon | null> {
  const conn = await tryConnect(paths);
  if (!conn) return null;
  const s = await status(conn);
  return { pid: s.daemon.pid, port: s.daemon.ws_port, version: s.daemon.version, sessions: s.sessions.map((x) => x.session_id) };
}

export async function stopDaemon(paths: HomePaths, env: Env, opts: { unresponsive?: boolean } = {}): Promise<void> {
  const { daemonStop } = await import("../commands/daemon.ts");
  const r = await daemonStop({ paths, env, params: {} }, opts);
  if (!r.ok) throw r.error;
}

/**
 * Start `bin`'s daemon detached on `port` and wait until it serves and reports `version`; throws
 * `daemon_start_failed` otherwise (after stopping whatever it started).
 */
export async function startAndVerify(
  paths: HomePaths,
  env: Env,
  bin: string,
  port: number,
  version: string,
  timeoutMs: number,
): Promise<number> {
  await ensureHome(paths);
  const argv = daemonArgv({ compiled: true, execPath: bin, extra: ["--auto-update", "--port", String(port)] });
  const child = await spawnDetached(argv, paths.log, daemonEnv(env, paths.home), paths.home);
  const started = performance.now();
  let served: StatusResult;
  try {
    const conn = await waitForDaemon(paths, { ms: timeoutMs, child });
    served = await status(conn, Math.max(1_000, Math.round(timeoutMs - (performance.now() - started))));
  } catch (err) {
    killQuietly(child.pid);
    const why = err instanceof Error ? err.message : String(err);
    throw new BskError("unsupported", `the daemon of ${bin} did not serve within ${Math.round(timeoutMs / 1000)} s: ${why}`, {
      data: { reason: "daemon_start_failed" },
    });
  }
  if (served.daemon.version !== version) {
    await stopDaemon(paths, env).catch(() => killQuietly(served.daemon.pid));
    throw new BskError("unsupported", `the restarted daemon reports version ${served.daemon.version}, not ${version}`, {
      data: { reason: "daemon_start_failed" },
    });
  }
  return served.daemon.pid;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}
