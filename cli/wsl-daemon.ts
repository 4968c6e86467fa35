/**
 * In WSL, with no Linux daemon answering: the person's Windows daemon, reached over its loopback TCP port with this
 * home's link proof, its daemon.json and link.key read through the drives' mount (/mnt/c/Users/…/AppData/Local/bsk).
 * Loaded only when the environment says WSL and nothing answered at $BSK_HOME (reach-daemon.ts): plain Linux never
 * pays for it. When a Windows bsk home is found, a Linux daemon is never started in its place.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { BskError } from "../protocol/errors.ts";
import { homePaths, type HomePaths } from "../shared/home.ts";
import {
  detectWsl,
  windowsHomeInWsl,
  windowsLocalAppData,
  wslChoice,
  wslToWindows,
  type InteropRunner,
  type WslFacts,
} from "../shared/wsl.ts";
import { readDaemonInfo, tryConnect, type Connection } from "./daemon-client.ts";

type Env = Record<string, string | undefined>;

export interface WslDeps {
  read(path: string): string | undefined;
  run: InteropRunner;
  /** Best effort; a cache that cannot be written is asked again next time. */
  write?(path: string, text: string): void;
}

const INTEROP_MS = 5_000;

export const realWslDeps: WslDeps = {
  read(path) {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
  },
  write(path, text) {
    try {
      writeFileSync(path, text, { mode: 0o600 });
    } catch {
      // the next call asks Windows again
    }
  },
  run(argv) {
    try {
      const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "ignore", stdin: "ignore", timeout: INTEROP_MS });
      return r.exitCode === 0 ? r.stdout.toString() : undefined;
    } catch {
      return undefined;
    }
  },
};

export interface WindowsHome {
  facts: WslFacts;
  /** The Windows home as Windows names it (C:\Users\ann\AppData\Local\bsk) and as WSL reaches it (/mnt/c/…). */
  windows: string;
  paths: HomePaths;
  /** Does it hold a bsk install (its link.key)? */
  found: boolean;
}

/**
 * The Windows user's bsk home seen from WSL, or null (not WSL, BSK_WSL=off, interop gives no %LOCALAPPDATA%). The
 * kernel is asked only when the environment hints WSL, or with `probe` (doctor) or BSK_WSL=windows.
 */
export function windowsHome(env: Env, deps: WslDeps = realWslDeps, probe = false, cache?: string): WindowsHome | null {
  if (wslChoice(env) === "off") return null;
  const facts = detectWsl(env, deps, probe || wslChoice(env) === "windows");
  if (!facts) return null;
  const at = (local: string | undefined) => {
    const home = local && windowsHomeInWsl(local, facts.root);
    if (!home) return null;
    const paths = homePaths(home, env, "linux");
    return { facts, windows: wslToWindows(home, facts.root) ?? home, paths, found: deps.read(paths.linkKey) !== undefined };
  };
  // %LOCALAPPDATA% costs a cmd.exe through interop (a tenth of a second or more): once found, it is kept in this
  // user's private Linux home and used while the Windows home it names still holds a bsk install.
  const kept = cache ? at(deps.read(cache)?.trim()) : null;
  if (kept?.found) return kept;
  const local = windowsLocalAppData(deps.run);
  const found = at(local);
  if (found?.found && cache && local) deps.write?.(cache, local);
  return found;
}

/** What WSL needs to reach Windows' 127.0.0.1 (the daemon listens there only). */
export function loopbackNote(facts: WslFacts): string {
  return facts.version === 1
    ? "WSL 1 shares Windows' loopback"
    : "WSL 2 reaches Windows' 127.0.0.1 only with networkingMode=mirrored in %USERPROFILE%\\.wslconfig (then wsl --shutdown)";
}

/**
 * The Windows daemon's connection; null when there is no Windows bsk home to use (BSK_WSL=auto: the caller goes on
 * as on Linux). A Windows home that is there but does not answer is an error naming what to do on Windows, never a
 * Linux daemon started instead (it would drive no browser of the person's).
 */
export async function reachWindowsDaemon(env: Env, deps: WslDeps = realWslDeps, cache?: string): Promise<Connection | null> {
  const win = windowsHome(env, deps, false, cache);
  const forced = wslChoice(env) === "windows";
  if (!win?.found) {
    if (!forced) return null;
    throw new BskError("unsupported", "BSK_WSL=windows, but no Windows bsk home was found from WSL", {
      hint: win
        ? `Nothing at ${win.windows} (${win.paths.home}): install bsk on Windows and run bsk daemon start there, or unset BSK_WSL.`
        : "WSL interop did not give %LOCALAPPDATA% (cmd.exe /c echo %LOCALAPPDATA%): turn interop on, or unset BSK_WSL.",
      data: { reason: "windows_daemon_not_found" },
    });
  }
  const conn = await tryConnect(win.paths, { ...env, BSK_TRANSPORT: "tcp" }, { windowsHome: true });
  if (conn) return conn;
  const info = await readDaemonInfo(win.paths);
  const port = info?.cli_port;
  const where = typeof port === "number" ? `on 127.0.0.1:${port}` : "(its daemon.json names no TCP port)";
  throw new BskError("unsupported", `the Windows bsk daemon of ${win.windows} did not answer ${where}`, {
    hint:
      `Ask the person to start it on Windows (bsk daemon start in PowerShell; not with BSK_TRANSPORT=unix). ${loopbackNote(win.facts)}. ` +
      "(BSK_WSL=off would use a Linux daemon and a Linux browser, without the person's logins.)",
    data: { reason: "windows_daemon_unreachable", home: win.windows, wsl: win.facts.version },
  });
}
