/**
 * Where state lives. Shared by the CLI and the daemon (one binary), so kept free of heavy imports.
 *
 * $BSK_HOME (default ~/.bsk), dirs 0700, files 0600:
 *   daemon.json        pid, socket, ws port, version, start time (written atomically)
 *   daemon.lock        single-instance lock (holds the daemon's pid)
 *   daemon.starting    held by the one CLI that is starting a daemon (its pid), while it waits for the answer
 *   run/daemon.sock    CLI ↔ daemon JSONL socket (a short hashed path in /tmp when $BSK_HOME is deep)
 *   logs/daemon.log    structured JSON log lines (rotated to daemon.log.1)
 *   config.json        extra allowed extension ids
 *   trust.key          this install's secret (base64url); the extension gets it once (native messaging or pairing)
 *   native/            the native messaging host launcher Chrome runs (bsk native install)
 *   state/sessions.json the session registry (for re-adoption after a restart; ids never reused)
 *   ledger/            the operation ledger (ops-NNNNNN.jsonl, fsync'd) and its HMAC key
 *   events/            each session's event stream (<session>.jsonl)
 */
export const DEFAULT_PORT = 52800;
/** Linux sun_path holds 108 bytes, macOS 104; stay well under both. */
const MAX_SOCKET_PATH = 100;

export function bskHome(env: Record<string, string | undefined> = process.env): string {
  const explicit = env.BSK_HOME;
  if (explicit) return explicit.replace(/\/+$/, "") || "/";
  const home = env.HOME || env.USERPROFILE || "/tmp";
  return `${home.replace(/\/+$/, "")}/.bsk`;
}

export interface HomePaths {
  home: string;
  daemonJson: string;
  lock: string;
  starting: string;
  runDir: string;
  socket: string;
  logsDir: string;
  log: string;
  config: string;
  secret: string;
  nativeDir: string;
  stateDir: string;
  sessions: string;
  ledgerDir: string;
  eventsDir: string;
}

export function homePaths(home = bskHome()): HomePaths {
  const runDir = `${home}/run`;
  let socket = `${runDir}/daemon.sock`;
  if (socket.length > MAX_SOCKET_PATH) {
    const hash = Bun.hash(home).toString(16).padStart(16, "0").slice(0, 16);
    const uid = typeof process.getuid === "function" ? process.getuid() : 0;
    socket = `/tmp/bsk-${uid}-${hash}.sock`;
  }
  return {
    home,
    daemonJson: `${home}/daemon.json`,
    lock: `${home}/daemon.lock`,
    starting: `${home}/daemon.starting`,
    runDir,
    socket,
    logsDir: `${home}/logs`,
    log: `${home}/logs/daemon.log`,
    config: `${home}/config.json`,
    secret: `${home}/trust.key`,
    nativeDir: `${home}/native`,
    stateDir: `${home}/state`,
    sessions: `${home}/state/sessions.json`,
    ledgerDir: `${home}/ledger`,
    eventsDir: `${home}/events`,
  };
}

/** Contents of daemon.json. */
export interface DaemonInfo {
  pid: number;
  socket: string;
  ws_port: number;
  version: string;
  protocol_version: string;
  started_at: string;
}
