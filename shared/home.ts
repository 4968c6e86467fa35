/**
 * Where state lives. Shared by the CLI and the daemon (one binary), so kept free of heavy imports.
 *
 * $BSK_HOME (default ~/.bsk; on Windows %LOCALAPPDATA%\bsk, every path with backslashes), dirs 0700, files 0600:
 *   daemon.json        pid, socket, CLI TCP port, ws port, version, start time (written atomically)
 *   daemon.lock        single-instance lock (holds the daemon's pid)
 *   daemon.starting    held by the one CLI that is starting a daemon (its pid), while it waits for the answer
 *   daemon.start-error.json  why the last daemon that failed to start failed (its pid, code, message, hint)
 *   run/daemon.sock    CLI ↔ daemon JSONL socket; when $BSK_HOME is too deep for a socket path, it is
 *                      <hash>.sock in $XDG_RUNTIME_DIR/bsk, else in ${TMPDIR:-/tmp}/bsk-<uid> (see socket-dir.ts);
 *                      on Windows the named pipe \\.\pipe\bsk-<hash of the home> (no folder)
 *   logs/daemon.log    structured JSON log lines (rotated to daemon.log.1)
 *   config.json        extra allowed extension ids
 *   trust.key          this install's secret (base64url); the extension gets it once (native messaging or pairing)
 *   link.key           the CLI link's key (base64url): CLI and daemon prove it to each other on connect (link-proof.ts)
 *   native/            the native messaging host launcher Chrome runs (bsk native install)
 *   state/sessions.json the session registry (for re-adoption after a restart; ids never reused)
 *   ledger/            the operation ledger (ops-NNNNNN.jsonl, fsync'd) and its HMAC key
 *   events/            each session's event stream (<session>.jsonl)
 */
export const DEFAULT_PORT = 52800;
/** Linux sun_path holds 108 bytes, macOS 104; stay well under both. */
const MAX_SOCKET_PATH = 100;

type Env = Record<string, string | undefined>;

/** Trailing slashes off, without a regular expression: every CLI call runs this, and its first one costs ~0.5 ms. */
function trimSlashes(path: string, slash = "/"): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === slash) end--;
  return path.slice(0, end);
}

/** A Windows path with one kind of separator (backslashes) and no trailing one, a drive's root kept whole ("C:\\"). */
export function winPath(path: string): string {
  const back = path.replaceAll("/", "\\");
  const trimmed = trimSlashes(back, "\\");
  return /^[A-Za-z]:$/.test(trimmed) ? `${trimmed}\\` : trimmed || "\\";
}

/** %LOCALAPPDATA%, else the profile's AppData\Local (Windows). */
export function localAppData(env: Env): string | undefined {
  return env.LOCALAPPDATA || (env.USERPROFILE ? `${env.USERPROFILE}\\AppData\\Local` : undefined);
}

export function bskHome(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  const explicit = env.BSK_HOME;
  if (platform === "win32") {
    if (explicit) return winPath(explicit);
    return winPath(`${winPath(localAppData(env) || env.TEMP || "C:\\")}\\bsk`);
  }
  if (explicit) return trimSlashes(explicit) || "/";
  const home = env.HOME || env.USERPROFILE || "/tmp";
  return `${trimSlashes(home)}/.bsk`;
}

/** `rel` (written with "/") under `home`, with the platform's one separator. */
export function inHome(home: string, rel: string, platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? `${home}\\${rel.replaceAll("/", "\\")}` : `${home}/${rel}`;
}

export interface HomePaths {
  home: string;
  daemonJson: string;
  lock: string;
  starting: string;
  /** The error of the last daemon that failed to start (its pid, code, message, hint), for the CLI that started it. */
  startError: string;
  /** The socket's folder: $BSK_HOME/run, or a per-user folder outside $BSK_HOME (never a shared one). */
  runDir: string;
  socket: string;
  logsDir: string;
  log: string;
  config: string;
  secret: string;
  /** The CLI link's key (link-key.ts). */
  linkKey: string;
  /** What the last update check found (update-state.ts). */
  updateState: string;
  /** In WSL: the Windows %LOCALAPPDATA% once found through interop (cli/wsl-daemon.ts). */
  wslCache: string;
  nativeDir: string;
  stateDir: string;
  sessions: string;
  ledgerDir: string;
  eventsDir: string;
}

export function homePaths(home = bskHome(), env: Env = process.env, platform: NodeJS.Platform = process.platform): HomePaths {
  const { runDir, socket } = socketPlace(home, env, platform);
  const at = (rel: string) => inHome(home, rel, platform);
  return {
    home,
    daemonJson: at("daemon.json"),
    lock: at("daemon.lock"),
    starting: at("daemon.starting"),
    startError: at("daemon.start-error.json"),
    runDir,
    socket,
    logsDir: at("logs"),
    log: at("logs/daemon.log"),
    config: at("config.json"),
    secret: at("trust.key"),
    linkKey: at("link.key"),
    updateState: at("update-state.json"),
    wslCache: at("wsl-windows-home"),
    nativeDir: at("native"),
    stateDir: at("state"),
    sessions: at("state/sessions.json"),
    ledgerDir: at("ledger"),
    eventsDir: at("events"),
  };
}

const PIPE_PREFIX = "\\\\.\\pipe\\";

/** Is this socket address a Windows named pipe (\\.\pipe\…) rather than a Unix socket's path? */
export function isPipe(socket: string): boolean {
  return socket.startsWith(PIPE_PREFIX);
}

/**
 * The daemon's named pipe on Windows: \\.\pipe\bsk-<hash of the home>, one per home. Windows paths ignore case,
 * so the home is lowered first: C:\Users\Ann\bsk and c:\users\ann\bsk are one home, one pipe.
 */
export function pipeName(home: string): string {
  return `${PIPE_PREFIX}bsk-${Bun.hash(winPath(home).toLowerCase()).toString(16).padStart(16, "0").slice(0, 16)}`;
}

/**
 * Where the socket lives: $BSK_HOME/run when the path fits; else a per-user folder that only this user may create
 * and enter ($XDG_RUNTIME_DIR/bsk, else ${TMPDIR:-/tmp}/bsk-<uid>), checked for owner and mode before use
 * (socket-dir.ts), never a predictable name in a folder every user can write. On Windows, where Bun cannot listen
 * on an AF_UNIX path everywhere (not under Wine), a named pipe in no folder: runDir is the home itself.
 */
export function socketPlace(home: string, env: Env, platform: NodeJS.Platform = process.platform): { runDir: string; socket: string } {
  if (platform === "win32") return { runDir: home, socket: pipeName(home) };
  const inHome = `${home}/run`;
  if (`${inHome}/daemon.sock`.length <= MAX_SOCKET_PATH) return { runDir: inHome, socket: `${inHome}/daemon.sock` };
  const name = `${Bun.hash(home).toString(16).padStart(16, "0").slice(0, 16)}.sock`;
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  const xdg = env.XDG_RUNTIME_DIR?.replace(/\/+$/, "");
  const tmp = env.TMPDIR?.replace(/\/+$/, "");
  const candidates = [
    xdg?.startsWith("/") ? `${xdg}/bsk` : undefined,
    tmp?.startsWith("/") ? `${tmp}/bsk-${uid}` : undefined,
    `/tmp/bsk-${uid}`,
  ];
  const runDir = candidates.find((dir) => dir && `${dir}/${name}`.length <= MAX_SOCKET_PATH) ?? `/tmp/bsk-${uid}`;
  return { runDir, socket: `${runDir}/${name}` };
}

/**
 * BSK_TRANSPORT: how the CLI reaches the daemon. auto (default): the socket, else (hidden or blocked by a sandbox)
 * the daemon's loopback TCP port; unix: the socket only (a daemon started so opens no TCP port); tcp: TCP only.
 */
export type CliTransport = "auto" | "unix" | "tcp";

export function cliTransport(env: Record<string, string | undefined>): CliTransport {
  const v = env.BSK_TRANSPORT;
  return v === "unix" || v === "tcp" ? v : "auto";
}

/** Contents of daemon.json. */
export interface DaemonInfo {
  pid: number;
  socket: string;
  /** The loopback TCP port of the CLI link (the same proof as on the socket), absent when BSK_TRANSPORT=unix. */
  cli_port?: number;
  ws_port: number;
  version: string;
  protocol_version: string;
  started_at: string;
}
