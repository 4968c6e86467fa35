/** `bsk daemon start|stop|status`: the CLI-only daemon lifecycle commands. They return data; output.ts prints. */
import type { HomePaths } from "../../shared/home.ts";
import { pidAlive } from "../../shared/pid.ts";
import { BskError } from "../../protocol/errors.ts";
import { startDaemon } from "../autostart.ts";
import { call, nextRequestId, readDaemonInfo, tryConnect, type Connection } from "../daemon-client.ts";
import { longLivedJit } from "../jit-policy.ts";
import type { Outcome } from "../output.ts";
import { GRACE_MS, randomIds } from "../plan.ts";

type Env = Record<string, string | undefined>;

export interface LocalContext {
  paths: HomePaths;
  env: Env;
  params: Record<string, unknown>;
}

const STOP_WAIT_MS = 5_000;

async function request(conn: Connection, method: string, timeoutMs = 10_000) {
  const traceId = randomIds().traceId;
  const reply = await call(
    conn,
    { id: nextRequestId(), method, params: {}, meta: { trace_id: traceId, timeout_ms: timeoutMs, client_pid: process.pid } },
    { giveUpMs: timeoutMs + GRACE_MS },
  );
  return { reply, traceId: reply.meta?.trace_id ?? traceId };
}

export async function daemonStart({ paths, env, params }: LocalContext): Promise<Outcome> {
  const port = params.port as number | undefined;
  const sessionIdleMs = params.session_idle_ms as number | undefined;
  const daemonIdleMs = params.daemon_idle_ms as number | undefined;
  if (params.mode === "server") {
    longLivedJit();
    return serverMode(paths, params);
  }
  for (const flag of ["listen", "public_url", "tls_cert", "tls_key", "trusted_proxy"]) {
    if (params[flag] !== undefined)
      throw new BskError("invalid_params", `--${flag.replace(/_/g, "-")} is a server-mode flag`, { hint: "Add --mode server." });
  }
  if (params.foreground) {
    longLivedJit();
    const { runDaemon } = await import("../../daemon/main.ts");
    const r = await runDaemon({ home: paths.home, port, sessionIdleMs, daemonIdleMs, autoUpdate: Boolean(params.auto_update) });
    if (r.kind === "already_running") {
      return {
        ok: true,
        format: "daemon.start",
        result: { already_running: true, pid: r.info.pid, socket: r.info.socket, ws_port: r.info.ws_port, log: paths.log },
      };
    }
    return { ok: true, format: "none", result: { stopped: true } };
  }
  let conn = await tryConnect(paths);
  const alreadyRunning = conn !== null;
  if (!conn) {
    const extra: string[] = [];
    if (port !== undefined) extra.push("--port", String(port));
    if (sessionIdleMs !== undefined) extra.push("--session-idle", `${sessionIdleMs}ms`);
    if (daemonIdleMs !== undefined) extra.push("--daemon-idle", `${daemonIdleMs}ms`);
    conn = await startDaemon(paths, env, extra);
  }
  const { reply, traceId } = await request(conn, "system.status");
  if (!reply.ok) return { ok: false, error: reply.error, traceId };
  const d = (reply.result as { daemon: { pid: number; socket: string; ws_port: number; version: string } }).daemon;
  return {
    ok: true,
    format: "daemon.start",
    traceId,
    result: { already_running: alreadyRunning, pid: d.pid, socket: d.socket, ws_port: d.ws_port, version: d.version, log: paths.log },
  };
}

/** Server mode runs in this process (under a supervisor) until stopped: remote browsers dial in, agents use the UDS. */
async function serverMode(paths: HomePaths, params: Record<string, unknown>): Promise<Outcome> {
  const need = (flag: string) => {
    const v = params[flag];
    if (typeof v !== "string" || v === "") {
      throw new BskError("invalid_params", `server mode needs --${flag.replace(/_/g, "-")}`, {
        hint: "See bsk daemon start --help and docs/remote.md.",
      });
    }
    return v;
  };
  const { runDaemon } = await import("../../daemon/main.ts");
  const r = await runDaemon({
    home: paths.home,
    server: {
      listen: need("listen"),
      port: (params.port as number | undefined) ?? 443,
      publicUrl: need("public_url"),
      tlsCert: params.tls_cert as string | undefined,
      tlsKey: params.tls_key as string | undefined,
      trustedProxies: typeof params.trusted_proxy === "string" ? params.trusted_proxy.split(",") : undefined,
    },
    sessionIdleMs: params.session_idle_ms as number | undefined,
  });
  if (r.kind === "already_running") {
    throw new BskError("invalid_params", `a daemon already serves ${paths.home} (pid ${r.info.pid})`, {
      hint: "Stop it first (bsk daemon stop), or give the server its own BSK_HOME.",
      data: { reason: "already_running", pid: r.info.pid },
    });
  }
  return { ok: true, format: "none", result: { stopped: true } };
}

function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(pid, sig);
  } catch {
    // gone meanwhile
  }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (let delay = 5; pidAlive(pid); delay = Math.min(delay * 2, 50)) {
    if (performance.now() >= deadline) return false;
    await Bun.sleep(delay);
  }
  return true;
}

/**
 * `unresponsive`: the caller already saw this daemon not answer within its deadline; it is not asked again (a hung
 * daemon would make the person wait twice): it gets SIGTERM, then SIGKILL.
 */
export async function daemonStop({ paths }: LocalContext, opts: { unresponsive?: boolean } = {}): Promise<Outcome> {
  // A daemon that takes the connection but never proves itself is hung: stopped by signal, as an unresponsive one.
  const conn = await tryConnect(paths).catch((e) => {
    if (e instanceof BskError && e.code === "timeout") return "hung" as const;
    throw e;
  });
  if (!conn) return { ok: true, format: "daemon.stop", result: { stopped: false, running: false } };
  const info = await readDaemonInfo(paths);
  let result: { pid: number; ended_sessions?: string[] } | undefined;
  let traceId: string | undefined;
  if (opts.unresponsive || conn === "hung") {
    if (conn !== "hung") conn.close();
    signal(info?.pid, "SIGTERM");
  } else {
    const sent = await request(conn, "system.shutdown");
    traceId = sent.traceId;
    // The daemon may exit before its reply gets out (a dropped connection), or hang (timeout): wait, then kill.
    const { reply } = sent;
    if (!reply.ok && reply.error.code !== "protocol_error" && reply.error.code !== "timeout")
      return { ok: false, error: reply.error, traceId };
    result = reply.ok ? (reply.result as { pid: number; ended_sessions?: string[] }) : undefined;
  }
  const pid = result?.pid ?? info?.pid;
  let killed = false;
  if (pid && !(await waitGone(pid, opts.unresponsive || conn === "hung" ? 2_000 : STOP_WAIT_MS))) {
    signal(pid, "SIGKILL");
    killed = true;
    await waitGone(pid, 1_000);
  }
  return {
    ok: true,
    format: "daemon.stop",
    traceId,
    result: { stopped: true, running: false, pid: pid ?? null, killed, ended_sessions: result?.ended_sessions ?? [] },
  };
}

export async function daemonStatus({ paths }: LocalContext): Promise<Outcome> {
  const conn = await tryConnect(paths);
  if (!conn) {
    return {
      ok: false,
      error: new BskError("unsupported", "the bsk daemon is not running", {
        hint: "Start it with: bsk daemon start (any other command starts it on demand unless BSK_AUTO_START=0).",
        data: { reason: "daemon_not_running" },
      }),
    };
  }
  const { reply, traceId } = await request(conn, "system.status");
  return reply.ok ? { ok: true, format: "daemon.status", result: reply.result, traceId } : { ok: false, error: reply.error, traceId };
}
