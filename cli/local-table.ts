/**
 * The CLI-only commands (daemon start|stop|status, logs, version, …) as plain data: their shapes. What each runs is
 * local-commands.ts, by its `local` name. Plain data, so the command index's macro (catalog-table.ts) reads it too.
 */
import type { CommandSpec } from "./command-spec.ts";

export const LOCAL_COMMANDS: CommandSpec[] = [
  {
    words: ["daemon", "start"],
    description: "Start the daemon detached (prints pid, socket and port); --foreground runs it in this process.",
    local: "daemon.start",
    scope: "none",
    positionals: [],
    flags: {
      foreground: { param: "foreground", type: "boolean", description: "Run in this process until stopped" },
      port: { param: "port", type: "number", env: "BSK_PORT", description: "Extension gateway port", default: 52800 },
      "session-idle": { param: "session_idle_ms", type: "duration", description: "End sessions idle this long", default: "5m" },
      "daemon-idle": { param: "daemon_idle_ms", type: "duration", description: "Exit after this long with no session and no browser" },
      "auto-update": {
        param: "auto_update",
        type: "boolean",
        description:
          "Check for updates every 6 h and install them while no session is live (background daemons have it; BSK_AUTO_UPDATE=off stops it)",
      },
      mode: {
        param: "mode",
        type: "enum",
        options: ["local", "server"],
        description: "server: remote browsers dial in over TLS (runs in the foreground)",
      },
      listen: { param: "listen", type: "string", description: "Server mode: the address to listen on (loopback unless --tls-cert)" },
      "public-url": { param: "public_url", type: "string", description: "Server mode: the URL browsers dial, wss://HOST[:PORT]/extension" },
      "tls-cert": {
        param: "tls_cert",
        type: "string",
        description: "Server mode: PEM certificate for the public URL's host (reloaded on SIGHUP)",
      },
      "tls-key": { param: "tls_key", type: "string", description: "Server mode: PEM private key of --tls-cert" },
      "trusted-proxy": {
        param: "trusted_proxy",
        type: "string",
        description:
          "Server mode: the reverse proxy's address(es), comma-separated; X-Forwarded-For is believed only from these (default: none, the first hop is the peer)",
      },
    },
    examples: [
      "bsk daemon start",
      "bsk daemon start --foreground --port 52801",
      "bsk daemon start --mode server --listen 0.0.0.0 --port 8443 --public-url wss://bsk.example.com:8443/extension --tls-cert cert.pem --tls-key key.pem",
    ],
  },
  {
    words: ["daemon", "stop"],
    description: "Stop the daemon (live sessions end); waits up to 5 s for it to exit. Not running is fine.",
    local: "daemon.stop",
    scope: "none",
    positionals: [],
    flags: {},
    examples: [],
  },
  {
    words: ["daemon", "status"],
    description: "Like bsk status, but never starts the daemon: says not running (exit 1) when there is none.",
    local: "daemon.status",
    scope: "none",
    positionals: [],
    flags: {},
    examples: [],
  },
  {
    words: ["logs"],
    description:
      "Print the daemon's log ($BSK_HOME/logs/daemon.log) as readable lines (--json: the raw JSON lines); -f follows it. Works without a daemon.",
    local: "logs",
    scope: "none",
    positionals: [],
    flags: {
      follow: { param: "follow", type: "boolean", alias: "f", description: "Keep printing new lines" },
      lines: { param: "lines", type: "number", alias: "n", default: 200, description: "How many of the last lines to print" },
    },
    examples: ["bsk logs -n 50", "bsk logs -f"],
  },
  {
    words: ["install-skill"],
    description:
      "Install the bsk skill (SKILL.md + references) into agent harnesses: Claude Code, Codex, Cursor, OpenClaw, CodeBuddy, WorkBuddy, Pi, Hermes, Kimi Code, …",
    local: "install-skill",
    scope: "none",
    positionals: [],
    flags: {
      harness: { param: "harness", type: "list", alias: "H", description: "Harness id (repeatable): claude-code, codex, cursor, …" },
      all: { param: "all", type: "boolean", description: "Every detected harness" },
      list: { param: "list", type: "boolean", description: "Show every harness with its path and state; install nothing" },
      force: { param: "force", type: "boolean", description: "Overwrite copies the person edited" },
    },
    examples: ["bsk install-skill", "bsk install-skill --harness claude-code --harness codex", "bsk install-skill --list"],
  },
  {
    words: ["doctor"],
    description:
      "Prove the whole path works: daemon, browser, protocol, skill, then a session that opens a built-in page, snapshots it, clicks a button and stops, each hop timed; exit 1 with the fix when a step fails.",
    local: "doctor",
    scope: "none",
    positionals: [],
    flags: {
      browser: { param: "browser", type: "string", description: "Browser instance id or label to test (default: the first connected)" },
      fix: {
        param: "fix",
        type: "boolean",
        description:
          "Also repair: register the native host, restart a daemon that hangs or runs another version (never with live sessions), install or update the skill; each said before it is done",
      },
    },
    examples: ["bsk doctor", "bsk doctor --fix", "bsk doctor --json"],
  },
  {
    words: ["mcp"],
    description:
      "Serve the catalog as an MCP stdio server (tools such as session_start, navigate, snapshot, click, screenshot); its sessions end when it exits.",
    local: "mcp",
    scope: "none",
    positionals: [],
    flags: {
      tools: {
        param: "tools",
        type: "string",
        default: "core",
        description:
          "Which tools to offer: core (what a whole session needs, in few tokens), all, or tool names separated by commas (core,evaluate)",
      },
    },
    ownFlagsOnly: true,
    examples: ["claude mcp add bsk -- bsk mcp", "claude mcp add bsk -- bsk mcp --tools all", "bsk mcp --tools core,evaluate,upload"],
  },
  {
    words: ["native", "install"],
    description:
      "Register bsk's native messaging host (com.bsk.bridge) with Chromium and Chrome, so the extension fetches this install's secret by itself (daemon start also does it for browsers it finds).",
    local: "native.install",
    scope: "none",
    positionals: [],
    flags: {
      "profile-dir": {
        param: "profile_dirs",
        type: "list",
        description: "Only for the browser started with --user-data-dir=DIR (repeatable), not the default profiles",
      },
    },
    examples: ["bsk native install", "bsk native install --profile-dir ~/chrome-work"],
  },
  {
    words: ["native", "uninstall"],
    description: "Remove the native messaging host registrations that point at this $BSK_HOME (pair with a code afterwards).",
    local: "native.uninstall",
    scope: "none",
    positionals: [],
    flags: {
      "profile-dir": { param: "profile_dirs", type: "list", description: "Also this --user-data-dir (repeatable)" },
    },
    examples: [],
  },
  {
    words: ["completion"],
    description: "Print the shell completion script for bash, zsh or fish (commands and flags come from the catalog).",
    local: "completion",
    scope: "none",
    positionals: [{ param: "shell", description: "bash, zsh or fish", required: true }],
    flags: {},
    examples: ['eval "$(bsk completion bash)"', "bsk completion fish > ~/.config/fish/completions/bsk.fish"],
  },
  {
    words: ["update"],
    description:
      "Install the newest signed release: SHA-256 and signature checked, binary swapped atomically (the old one kept as <bin>.previous), daemon restarted, rolled back if it does not serve within 20 s. Waits while sessions are live.",
    local: "update",
    scope: "none",
    positionals: [],
    flags: {
      check: { param: "check", type: "boolean", description: "Only report whether a newer release exists" },
      yes: { param: "yes", type: "boolean", alias: "y", description: "Install without asking (needed when not on a terminal)" },
    },
    examples: ["bsk update --check", "bsk update", "bsk update --yes --json"],
  },
  {
    words: ["version"],
    description: "Print bsk's version and protocol version.",
    local: "version",
    scope: "none",
    positionals: [],
    flags: {},
    examples: [],
  },
];
