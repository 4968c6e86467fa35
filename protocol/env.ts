/**
 * Every environment variable bsk reads, in one table. docs/reference.md's Environment section is generated from it,
 * and a test fails when the source reads a BSK_* variable that is not listed here.
 */
export interface EnvVar {
  name: string;
  default: string;
  read_by: "cli" | "daemon" | "cli+daemon" | "scripts";
  description: string;
}

export const ENV_VARS: EnvVar[] = [
  { name: "BSK_HOME", default: "~/.bsk", read_by: "cli+daemon", description: "Home of all state (daemon.json, socket, logs, registry)." },
  { name: "BSK_SESSION", default: "—", read_by: "cli", description: "Session id used when --session is not given." },
  {
    name: "BSK_OWNER_PID",
    default: "—",
    read_by: "cli",
    description: "session start: end the session when this process exits (same as --owner-pid).",
  },
  {
    name: "BSK_AUTO_START",
    default: "1",
    read_by: "cli",
    description: "0 = never start the daemon implicitly; commands then fail naming `bsk daemon start`.",
  },
  {
    name: "BSK_DAEMON_JIT",
    default: "0",
    read_by: "cli",
    description:
      "1 = a daemon the CLI starts in the background runs with JavaScriptCore's JIT compilers on (BUN_JSC_useJIT, if set, is passed as it is). Off by default: ~0.4 ms more CPU a call, ~12–25 MB less RSS once it has served thousands of calls (docs/development.md, memory).",
  },
  {
    name: "BSK_TRANSPORT",
    default: "auto",
    read_by: "cli+daemon",
    description:
      "How the CLI reaches the daemon. auto: its Unix socket, else (a sandbox hides or blocks it) its loopback TCP port from daemon.json; tcp: only TCP; unix: only the socket (a daemon started with unix opens no TCP port). Both ways carry the same link proof (docs/security.md); before the TCP port the CLI checks the home is this user's alone.",
  },
  {
    name: "BSK_WSL",
    default: "auto",
    read_by: "cli",
    description:
      "In WSL, with no Linux daemon answering: auto uses the person's Windows daemon (its home %LOCALAPPDATA%\\bsk read through /mnt/c, reached over loopback TCP) when a Windows bsk home is found, else goes on as on Linux; windows: only the Windows daemon; off: never (docs/install.md, WSL).",
  },
  {
    name: "BSK_NODE_SHIM",
    default: "—",
    read_by: "cli",
    description:
      "Set by the npm package's Node entry when it, not the native binary, is what the `bsk` command runs (npm skipped the install script, or Windows, where npm links commands through Node); bsk doctor then says what each call pays and how to skip it (docs/install.md, npm).",
  },
  {
    name: "BSK_PORT",
    default: "52800",
    read_by: "cli+daemon",
    description: "Port of the extension gateway on 127.0.0.1 (same as daemon start --port).",
  },
  {
    name: "BSK_SESSION_IDLE_MS",
    default: "300000",
    read_by: "daemon",
    description: "A session with no call for this long ends (reason idle).",
  },
  {
    name: "BSK_DAEMON_IDLE_MS",
    default: "600000",
    read_by: "daemon",
    description: "The daemon exits after this long with no client, browser or session.",
  },
  {
    name: "BSK_HANDSHAKE_MS",
    default: "5000",
    read_by: "daemon",
    description: "An extension must handshake within this time after connecting.",
  },
  {
    name: "BSK_NATIVE_HOST",
    default: "auto",
    read_by: "daemon",
    description:
      "off = the daemon does not register its native messaging host with the browsers it finds at start (bsk native install still does).",
  },
  {
    name: "BSK_PAIRING_TTL_MS",
    default: "300000",
    read_by: "daemon",
    description: "How long a bsk daemon pair code stays valid (it pairs once; wrong tries do not use it up).",
  },
  {
    name: "BSK_PAIRING_INTERVAL_MS",
    default: "1000",
    read_by: "daemon",
    description:
      "Pairing tries: a peer address waits this after its first try on a code, doubling with each further one; all peers together get 10 at once, then one per this (slower after every 20). Sooner ones are refused (pairing_rate_limited) without counting.",
  },
  {
    name: "BSK_DEVICE_GRANT_MS",
    default: "7776000000",
    read_by: "daemon",
    description: "Server mode: how long a paired device's grant lasts (90 days) from pairing or its last renewal.",
  },
  {
    name: "BSK_DEVICE_RENEW_MS",
    default: "2592000000",
    read_by: "daemon",
    description: "Server mode: a device renews its grant (rotating its secret) once this long has passed (30 days).",
  },
  { name: "BSK_HEARTBEAT_MS", default: "20000", read_by: "daemon", description: "Heartbeat interval the daemon asks the extension for." },
  {
    name: "BSK_BROWSER_SILENCE_MS",
    default: "60000",
    read_by: "daemon",
    description: "A browser silent this long is dropped and its sessions end (browser_gone).",
  },
  {
    name: "BSK_BROWSER_WAIT_MS",
    default: "35000",
    read_by: "daemon",
    description: "session start waits this long for a browser to connect.",
  },
  {
    name: "BSK_RECONNECT_GRACE_MS",
    default: "10000",
    read_by: "daemon",
    description: "Sessions survive a browser reconnecting within this time (a stopped service worker waking up).",
  },
  {
    name: "BSK_READOPT_WAIT_MS",
    default: "60000",
    read_by: "daemon",
    description: "After a restart, live sessions wait this long for their browser to re-adopt them.",
  },
  {
    name: "BSK_DOCTOR_BROWSER_WAIT_MS",
    default: "5000",
    read_by: "cli",
    description: "bsk doctor waits this long for a browser to connect before it fails the browser check.",
  },
  {
    name: "BSK_BROWSER_COMMAND",
    default: "found",
    read_by: "daemon",
    description:
      "The browser executable bsk browser launch (and session start --launch) starts; default: the first of Chrome, Chromium, Edge, Brave found.",
  },
  {
    name: "NO_COLOR",
    default: "—",
    read_by: "cli",
    description: "Set (non-empty): no colour on stderr. Otherwise `error:` and `warning:` are coloured on a terminal only.",
  },
  {
    name: "FORCE_COLOR",
    default: "—",
    read_by: "cli",
    description: "1 = colour `error:`/`warning:` even when stderr is not a terminal; 0 = never.",
  },
  { name: "BSK_OWNER_POLL_MS", default: "1000", read_by: "daemon", description: "How often owner processes (--owner-pid) are checked." },
  {
    name: "BSK_AUTO_UPDATE",
    default: "on",
    read_by: "daemon",
    description: "off (any case) = background daemons never check for or install updates (bsk update still works).",
  },
  {
    name: "BSK_UPDATE_INTERVAL_MS",
    default: "21600000",
    read_by: "daemon",
    description: "How often a background daemon checks for a new release (6 h).",
  },
  {
    name: "BSK_UPDATE_MANIFEST_URL",
    default: "release host",
    read_by: "cli+daemon",
    description: "The signed release manifest (version.json; its .sig beside it) that bsk update and the daemon's check read.",
  },
  {
    name: "BSK_UPDATE_SERVE_TIMEOUT_MS",
    default: "20000",
    read_by: "cli",
    description: "bsk update rolls back when the new daemon does not serve within this time.",
  },
  {
    name: "BSK_RELEASE_KEY_FILE",
    default: "—",
    read_by: "scripts",
    description: "npm run release: the release private key (Ed25519 PEM), kept outside the repository.",
  },
  {
    name: "BSK_RELEASE_BASE_URL",
    default: "https://github.com/bsk-dev/bsk/releases",
    read_by: "scripts",
    description: "npm run release and install.sh: where releases are published (<base>/download/v<version>/…, <base>/latest/download/…).",
  },
  {
    name: "BSK_RELEASE_VALID_DAYS",
    default: "30",
    read_by: "scripts",
    description: "npm run release (and its --refresh): how many days the signed manifest is taken before bsk refuses it as expired.",
  },
  { name: "BSK_INSTALL_DIR", default: "~/.local/bin", read_by: "scripts", description: "install.sh: where bsk is installed." },
  {
    name: "BSK_VERSION",
    default: "latest",
    read_by: "scripts",
    description: "install.sh: install this release instead of the latest (even when its manifest expired).",
  },
  {
    name: "BSK_TRANSFER_MAX_FILE_BYTES",
    default: "209715200",
    read_by: "daemon",
    description: "Largest file staged for an upload, download or full-page capture (200 MB).",
  },
  {
    name: "BSK_TRANSFER_MAX_FILES",
    default: "20",
    read_by: "daemon",
    description:
      "Most files staged in one session at a time; an upload's files give their place back once a call has used them, kept downloads stay until the session ends.",
  },
  {
    name: "BSK_TRANSFER_MAX_SESSION_BYTES",
    default: "524288000",
    read_by: "daemon",
    description: "Most bytes staged in one session at a time (500 MB).",
  },
  {
    name: "CHROMIUM",
    default: "auto",
    read_by: "scripts",
    description: "Browser binary for tests, demo and bench (Debian Chromium, or branded Chrome).",
  },
  { name: "HEADLESS", default: "on", read_by: "scripts", description: "off = run the demo/test browser headed (needs a display)." },
  { name: "BENCH_RUNS", default: "40", read_by: "scripts", description: "Samples per warm measurement in npm run bench." },
  {
    name: "BENCH_ONLY",
    default: "(every row)",
    read_by: "scripts",
    description: "A regular expression: `bench --peer` times only the rows whose name matches (a quick A/B of a few calls).",
  },
];
