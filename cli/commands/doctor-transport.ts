/**
 * doctor's transport check: which ways to the daemon work from this process (its Unix socket, its loopback TCP port),
 * each with the link proof, and what to allow when a sandbox blocks one (docs/install.md, agents in sandboxes).
 */
import { asBskError } from "../call-pipeline.ts";
import type { DaemonInfo, HomePaths } from "../../shared/home.ts";
import { readDaemonInfo, tryConnect } from "../daemon-client.ts";
import type { Check } from "./doctor-report.ts";

type Env = Record<string, string | undefined>;

/** "ok", or why this way does not reach the daemon. */
export async function probe(paths: HomePaths, env: Env, transport: "unix" | "tcp"): Promise<string> {
  try {
    const conn = await tryConnect(paths, { ...env, BSK_TRANSPORT: transport });
    if (!conn) return "not reachable from here";
    conn.close();
    return "ok";
  } catch (e) {
    return asBskError(e).message;
  }
}

export async function transportCheck(
  paths: HomePaths,
  env: Env,
): Promise<{ value: true; detail: string; status?: Check["status"]; hint?: string }> {
  const info: DaemonInfo | null = await readDaemonInfo(paths);
  const socket = info?.socket || paths.socket;
  const port = info?.cli_port;
  const unix = await probe(paths, env, "unix");
  const tcp = typeof port === "number" ? await probe(paths, env, "tcp") : "off (the daemon runs with BSK_TRANSPORT=unix)";
  const detail = `socket ${socket}: ${unix}; tcp 127.0.0.1:${port ?? "-"}: ${tcp}`;
  if (unix === "ok") return { value: true, detail };
  const allow =
    `In a sandbox, allow reading ${paths.home} and either the socket ${socket} or loopback TCP to 127.0.0.1` +
    `${typeof port === "number" ? `:${port}` : ""}; what to set in Claude Code, Codex and bubblewrap is in docs/install.md (agents in sandboxes).`;
  if (tcp === "ok") return { value: true, detail: `${detail} (this process uses TCP)`, status: "warn", hint: allow };
  return { value: true, detail, status: "fail", hint: allow };
}
