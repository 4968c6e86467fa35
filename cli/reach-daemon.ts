/** Reaching this $BSK_HOME's daemon: connect, or start one (autostart.ts, loaded only when none answers). */
import { BskError } from "../protocol/errors.ts";
import type { HomePaths } from "../shared/home.ts";
import { tryConnect, type Connection } from "./daemon-client.ts";

export function daemonNotRunning(): BskError {
  return new BskError("unsupported", "the bsk daemon is not running", { data: { reason: "daemon_not_running" } });
}

/**
 * A connection to this $BSK_HOME's daemon; in WSL with none, the Windows daemon (wsl-daemon.ts); else starting one
 * (detached), unless
 * BSK_AUTO_START=0 or `autoStart` is false (then: unsupported, reason daemon_not_running).
 */
export async function reachDaemon(paths: HomePaths, env: Record<string, string | undefined>, autoStart = true): Promise<Connection> {
  const conn = await tryConnect(paths, env);
  if (conn) return conn;
  const t0 = performance.now();
  const reached = await reachOrStart(paths, env, autoStart);
  // Counted against the call's timeout (daemon-client.ts call): --timeout holds by the CLI's own clock.
  reached.spentMs = performance.now() - t0;
  return reached;
}

async function reachOrStart(paths: HomePaths, env: Record<string, string | undefined>, autoStart: boolean): Promise<Connection> {
  // In WSL, the person's Windows daemon (its browser) before a Linux one: wsl-daemon.ts, loaded only then.
  if (env.BSK_WSL === "windows" || (env.BSK_WSL !== "off" && (env.WSL_DISTRO_NAME || env.WSL_INTEROP))) {
    const { reachWindowsDaemon } = await import("./wsl-daemon.ts");
    const windows = await reachWindowsDaemon(env, undefined, paths.wslCache);
    if (windows) return windows;
  }
  // not running (no daemon.json, stale pid, refused): start one
  if (!autoStart || env.BSK_AUTO_START === "0") throw daemonNotRunning();
  const { startDaemon } = await import("./autostart.ts");
  return startDaemon(paths, env);
}
