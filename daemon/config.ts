/**
 * The daemon's settings: explicit options first, then environment variables, then defaults.
 * Every duration is configurable so tests can make each timer fire quickly.
 */
import { parseDuration } from "../protocol/duration.ts";
import { DEVICE_GRANT_MS, DEVICE_RENEW_MS } from "../protocol/remote.ts";
import { bskHome, cliTransport, DEFAULT_PORT, homePaths, type DaemonInfo, type HomePaths } from "../shared/home.ts";
import type { DiskSync } from "./ledger.ts";
import { resolveServerMode, type ServerMode, type ServerModeOptions } from "./remote/server-options.ts";

export interface DaemonOptions {
  home?: string;
  port?: number;
  sessionIdleMs?: number;
  daemonIdleMs?: number;
  /** Check for updates and install them (daemons the CLI starts in the background; `--auto-update`). */
  autoUpdate?: boolean;
  /** Environment to read settings from (default process.env); lets tests run daemons in-process. */
  env?: Record<string, string | undefined>;
  /** Called once the daemon serves both links and daemon.json is written. */
  onReady?: (info: DaemonInfo) => void;
  /** Called once both links listen and daemon.json is written, before the schema warm-up that precedes ready. */
  onListening?: () => void;
  /** Server mode (remote browsers over TLS, daemon/remote/): never idle-exits, logs JSON lines to stdout/stderr too. */
  server?: ServerModeOptions;
  /** Server mode writes its log lines to stdout/stderr too (default); tests running it in-process turn that off. */
  mirrorLog?: boolean;
  /** Tests running it in-process only: the ledger's disk sync, to hold it up or fail it (ledger.ts DiskSync). */
  ledgerSync?: DiskSync;
}

export interface DaemonConfig {
  paths: HomePaths;
  port: number;
  /** The CLI link also on a loopback TCP port (unless BSK_TRANSPORT=unix). */
  cliTcp: boolean;
  sessionIdleMs: number;
  daemonIdleMs: number;
  handshakeMs: number;
  heartbeatMs: number;
  browserSilenceMs: number;
  reconnectGraceMs: number;
  browserWaitMs: number;
  readoptWaitMs: number;
  ownerPollMs: number;
  /** Periodic update check on (--auto-update, and BSK_AUTO_UPDATE is not off), and its interval. */
  autoUpdate: boolean;
  updateIntervalMs: number;
  /** How long a `bsk daemon pair` code stays valid. */
  pairingTtlMs: number;
  /** Pairing tries are taken at most one per this (trust/pairing-codes.ts). */
  pairingIntervalMs: number;
  /** auto: register the native messaging host with the browsers found at start; off: only `bsk native install`. */
  nativeHost: "auto" | "off";
  /** Calls allowed to wait behind the running one, per session. */
  queueLimit: number;
  defaultTimeoutMs: number;
  /** Server mode, checked (undefined: the local daemon). */
  server?: ServerMode;
  mirrorLog: boolean;
  ledgerSync?: DiskSync;
  /** Device grants in server mode: how long one lasts, and when the extension renews it. */
  deviceGrantMs: number;
  deviceRenewMs: number;
  /** The environment a launched browser gets (bsk browser launch), with BSK_BROWSER_COMMAND. */
  env: Record<string, string | undefined>;
}

export const DEFAULTS = {
  sessionIdleMs: 300_000,
  daemonIdleMs: 600_000,
  handshakeMs: 5_000,
  heartbeatMs: 20_000,
  browserSilenceMs: 60_000,
  // Longer than a stopped service worker takes to wake and reconnect (keep-alive pings every 2 s, SPEC: within 5 s).
  reconnectGraceMs: 10_000,
  browserWaitMs: 35_000,
  readoptWaitMs: 60_000,
  ownerPollMs: 1_000,
  updateIntervalMs: 6 * 3600_000,
  pairingTtlMs: 300_000,
  pairingIntervalMs: 1000,
  queueLimit: 32,
  defaultTimeoutMs: 30_000,
} as const;

/** A duration from the environment: `1500`, `1500ms`, `30s`, `5m`; anything else falls back to the default. */
export function envMs(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const ms = parseDuration(raw);
  return ms !== null && ms >= 0 ? ms : fallback;
}

function envInt(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const n = Number(env[name]);
  return env[name] !== undefined && env[name] !== "" && Number.isInteger(n) && n >= 0 ? n : fallback;
}

export function resolveConfig(opts: DaemonOptions = {}): DaemonConfig {
  const env = opts.env ?? process.env;
  const home = opts.home ?? bskHome(env);
  return {
    paths: homePaths(home, env),
    port: opts.port ?? envInt(env, "BSK_PORT", DEFAULT_PORT),
    cliTcp: cliTransport(env) !== "unix",
    sessionIdleMs: opts.sessionIdleMs ?? envMs(env, "BSK_SESSION_IDLE_MS", DEFAULTS.sessionIdleMs),
    daemonIdleMs: opts.daemonIdleMs ?? envMs(env, "BSK_DAEMON_IDLE_MS", DEFAULTS.daemonIdleMs),
    handshakeMs: envMs(env, "BSK_HANDSHAKE_MS", DEFAULTS.handshakeMs),
    heartbeatMs: envMs(env, "BSK_HEARTBEAT_MS", DEFAULTS.heartbeatMs),
    browserSilenceMs: envMs(env, "BSK_BROWSER_SILENCE_MS", DEFAULTS.browserSilenceMs),
    reconnectGraceMs: envMs(env, "BSK_RECONNECT_GRACE_MS", DEFAULTS.reconnectGraceMs),
    browserWaitMs: envMs(env, "BSK_BROWSER_WAIT_MS", DEFAULTS.browserWaitMs),
    readoptWaitMs: envMs(env, "BSK_READOPT_WAIT_MS", DEFAULTS.readoptWaitMs),
    ownerPollMs: Math.max(10, envMs(env, "BSK_OWNER_POLL_MS", DEFAULTS.ownerPollMs)),
    autoUpdate: opts.autoUpdate === true && !/^(off|0|false|no)$/i.test((env.BSK_AUTO_UPDATE ?? "").trim()),
    updateIntervalMs: Math.max(10, envMs(env, "BSK_UPDATE_INTERVAL_MS", DEFAULTS.updateIntervalMs)),
    pairingTtlMs: envMs(env, "BSK_PAIRING_TTL_MS", DEFAULTS.pairingTtlMs),
    pairingIntervalMs: envMs(env, "BSK_PAIRING_INTERVAL_MS", DEFAULTS.pairingIntervalMs),
    nativeHost: env.BSK_NATIVE_HOST === "off" ? "off" : "auto",
    queueLimit: DEFAULTS.queueLimit,
    defaultTimeoutMs: DEFAULTS.defaultTimeoutMs,
    server: opts.server && resolveServerMode(opts.server),
    mirrorLog: opts.server !== undefined && opts.mirrorLog !== false,
    ...(opts.ledgerSync && { ledgerSync: opts.ledgerSync }),
    deviceGrantMs: envMs(env, "BSK_DEVICE_GRANT_MS", DEVICE_GRANT_MS),
    deviceRenewMs: envMs(env, "BSK_DEVICE_RENEW_MS", DEVICE_RENEW_MS),
    env,
  };
}
