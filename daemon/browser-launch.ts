/**
 * `bsk browser launch` and `session start --launch`: start the person's installed Chromium-family browser with its
 * default profile (no flags: their own logins and extensions, bsk's among them) when none is running. A browser that
 * runs but whose extension has not connected is not started twice: that is said instead, with what to check.
 * BSK_BROWSER_COMMAND names the executable to start instead of the ones found (a wrapper script, a portable build).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, delimiter, join } from "node:path";
import { BskError } from "../protocol/errors.ts";
import { readJsonFile } from "../shared/fs-util.ts";
import { localAppData } from "../shared/home.ts";
import type { DaemonContext } from "./context.ts";

export interface Installed {
  name: string;
  command: string;
  /** Process names (/proc/PID/comm on Linux, the executable's name in its .app on macOS) of this browser once it runs. */
  processNames: readonly string[];
}

const LINUX: readonly { name: string; bins: readonly string[]; processNames: readonly string[] }[] = [
  { name: "Google Chrome", bins: ["google-chrome-stable", "google-chrome"], processNames: ["chrome"] },
  { name: "Chromium", bins: ["chromium", "chromium-browser", "/snap/bin/chromium"], processNames: ["chromium", "chrome"] },
  { name: "Microsoft Edge", bins: ["microsoft-edge-stable", "microsoft-edge"], processNames: ["msedge"] },
  { name: "Brave", bins: ["brave-browser", "brave-browser-stable", "/snap/bin/brave"], processNames: ["brave"] },
];

const MAC: readonly { name: string; app: string }[] = [
  { name: "Google Chrome", app: "Google Chrome" },
  { name: "Chromium", app: "Chromium" },
  { name: "Microsoft Edge", app: "Microsoft Edge" },
  { name: "Brave", app: "Brave Browser" },
];

type Env = Record<string, string | undefined>;
type WinRoot = "ProgramFiles" | "ProgramFiles(x86)" | "LOCALAPPDATA";

/** Where each browser installs on Windows: a folder under Program Files, Program Files (x86) or Local AppData. */
const WINDOWS: readonly { name: string; dir: string; exe: string; roots: readonly WinRoot[] }[] = [
  {
    name: "Google Chrome",
    dir: "Google\\Chrome\\Application",
    exe: "chrome.exe",
    roots: ["ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"],
  },
  { name: "Chromium", dir: "Chromium\\Application", exe: "chrome.exe", roots: ["LOCALAPPDATA", "ProgramFiles", "ProgramFiles(x86)"] },
  {
    name: "Microsoft Edge",
    dir: "Microsoft\\Edge\\Application",
    exe: "msedge.exe",
    roots: ["ProgramFiles(x86)", "ProgramFiles", "LOCALAPPDATA"],
  },
  {
    name: "Brave",
    dir: "BraveSoftware\\Brave-Browser\\Application",
    exe: "brave.exe",
    roots: ["ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"],
  },
];

/** Windows' process.env ignores the case of names; an injected one is read as written. */
function winRoot(env: Env, root: WinRoot): string | undefined {
  if (root === "LOCALAPPDATA") return localAppData(env);
  return env[root] || (root === "ProgramFiles" ? "C:\\Program Files" : "C:\\Program Files (x86)");
}

/** The Windows executables of each browser, in the order they are tried (the same folder is tried once). */
export function windowsCandidates(env: Env): { name: string; exe: string; paths: string[] }[] {
  return WINDOWS.map((b) => {
    const paths = b.roots.flatMap((r) => {
      const root = winRoot(env, r)?.replace(/[\\/]+$/, "");
      return root ? [`${root}\\${b.dir}\\${b.exe}`] : [];
    });
    return { name: b.name, exe: b.exe, paths: [...new Set(paths)] };
  });
}

function onPath(bin: string, path: string, exists: (path: string) => boolean): string | undefined {
  if (bin.startsWith("/")) return exists(bin) ? bin : undefined;
  for (const dir of path.split(delimiter)) if (dir && exists(join(dir, bin))) return join(dir, bin);
  return undefined;
}

/**
 * Where a macOS browser's executable may be, in order: the machine's /Applications, then the person's own
 * ~/Applications (where an install without an administrator's password goes).
 */
export function macCommands(app: string, home: string | undefined): string[] {
  const inside = `${app}.app/Contents/MacOS/${app}`;
  return [`/Applications/${inside}`, ...(home ? [join(home, "Applications", inside)] : [])];
}

/** The browsers installed here, in the order they are preferred. `exists` is the file system's unless a test gives one. */
export function installedBrowsers(env: Env, platform = process.platform, exists: (path: string) => boolean = existsSync): Installed[] {
  const override = env.BSK_BROWSER_COMMAND;
  if (override) return [{ name: "BSK_BROWSER_COMMAND", command: override, processNames: [] }];
  if (platform === "win32") {
    return windowsCandidates(env).flatMap((b) => {
      const command = b.paths.find(exists);
      return command ? [{ name: b.name, command, processNames: [b.exe] }] : [];
    });
  }
  if (platform === "darwin") {
    return MAC.flatMap((b) => {
      const command = macCommands(b.app, env.HOME).find(exists);
      return command ? [{ name: b.name, command, processNames: [b.app] }] : [];
    });
  }
  const path = env.PATH ?? "";
  return LINUX.flatMap((b) => {
    for (const bin of b.bins) {
      const command = onPath(bin, path, exists);
      if (command) return [{ name: b.name, command, processNames: b.processNames }];
    }
    return [];
  });
}

/**
 * Whether a process of this browser runs for this user: Linux reads /proc, macOS (no /proc) asks /bin/ps; elsewhere
 * it is not known, so not assumed.
 */
export function isRunning(b: Installed, uid = process.getuid?.(), platform = process.platform): boolean {
  if (!b.processNames.length) return false;
  if (platform === "darwin") {
    // By its path: a PATH an agent's repo sets could name another ps.
    const ps = spawnSync("/bin/ps", ["-axo", "uid=,comm="], { encoding: "utf8", env: { ...process.env, LC_ALL: "C" }, timeout: 5000 });
    return ps.status === 0 && runsIn(ps.stdout, b, uid);
  }
  if (!existsSync("/proc")) return false;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      if (!b.processNames.includes(comm)) continue;
      const owner = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      if (uid === undefined || Number(owner) === uid) return true;
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return false;
}

/**
 * Whether `ps -axo uid=,comm=` output lists this browser for `uid`. macOS's comm is the executable's path
 * (`/Applications/Google Chrome.app/Contents/MacOS/Google Chrome`), Linux's its short name: either ends in one of
 * the browser's process names.
 */
export function runsIn(psOutput: string, b: Installed, uid: number | undefined): boolean {
  for (const line of psOutput.split("\n")) {
    const m = /^\s*(\d+)\s+(.+)$/.exec(line);
    if (!m || (uid !== undefined && Number(m[1]) !== uid)) continue;
    const comm = m[2]!.trim();
    if (comm === b.command || b.processNames.includes(basename(comm))) return true;
  }
  return false;
}

export interface Launched {
  launched: boolean;
  browser: string;
  command: string;
  pid?: number;
  /** Why nothing was started (a browser of that kind already runs). */
  note?: string;
}

/** Starts the first installed browser unless one of them already runs; throws no_browser_installed. */
export function launchBrowser(env: Record<string, string | undefined>): Launched {
  const found = installedBrowsers(env);
  if (!found.length) {
    throw new BskError("not_found", "no Chrome, Chromium, Edge or Brave found to start", {
      hint: "Install one, or set BSK_BROWSER_COMMAND to the browser's executable; then add the bsk extension to it.",
      data: { reason: "no_browser_installed" },
    });
  }
  const running = found.find((b) => isRunning(b));
  if (running) {
    return {
      launched: false,
      browser: running.name,
      command: running.command,
      note: `${running.name} is running but no bsk extension in it has connected: check the extension is installed and enabled there (bsk doctor)`,
    };
  }
  const b = found[0]!;
  // Its own process group: the browser outlives the daemon (and a daemon stop never signals it).
  const child = spawn(b.command, [], { detached: true, stdio: "ignore", env: env as NodeJS.ProcessEnv });
  child.on("error", () => undefined);
  child.unref();
  return { launched: true, browser: b.name, command: b.command, pid: child.pid };
}

/** The daemon's launch: never in server mode (the browsers are on other machines). */
export function startBrowser(ctx: Pick<DaemonContext, "config">): Launched {
  if (ctx.config.server) {
    throw new BskError("unsupported", "a server-mode daemon starts no browser: its browsers are on the people's computers", {
      hint: "The person opens their browser; it links to this server by itself once paired (bsk daemon devices).",
    });
  }
  return launchBrowser(ctx.config.env);
}

/** config.json `launch_browser: true`: session start launches the browser when none is connected, as --launch does. */
export function launchByConfig(configFile: string): boolean {
  return (readJsonFile(configFile) as { launch_browser?: unknown } | undefined)?.launch_browser === true;
}
