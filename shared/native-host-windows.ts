/**
 * Windows: Chromium-family browsers find a native messaging host through the registry, not a folder:
 * HKCU\Software\<vendor>\NativeMessagingHosts\com.bsk.bridge, whose default value is the manifest's path. The
 * manifest ($BSK_HOME\native\com.bsk.bridge.json) names a launcher ($BSK_HOME\native\bsk-native-host.cmd) that fixes
 * BSK_HOME and runs bsk.exe native-host, as the shell launcher does on Linux. The keys are written, read and removed
 * with reg.exe (`reg add|query|delete`), which Windows and Wine both have; the runner is injectable for unit tests.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { writeAtomic } from "./atomic-file.ts";
import { ensurePrivateDir } from "./fs-util.ts";
import { inHome, type HomePaths } from "./home.ts";

/** The native messaging host's name (defined here, the lower of the two register modules; re-exported there). */
export const HOST_NAME = "com.bsk.bridge";

/** The registry key of each browser that reads native messaging hosts from HKCU. */
export const WINDOWS_HOST_KEYS: readonly { browser: string; key: string }[] = [
  { browser: "chrome", key: `HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\${HOST_NAME}` },
  { browser: "chromium", key: `HKCU\\Software\\Chromium\\NativeMessagingHosts\\${HOST_NAME}` },
  { browser: "edge", key: `HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\${HOST_NAME}` },
  { browser: "brave", key: `HKCU\\Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts\\${HOST_NAME}` },
];

export type RegRunner = (args: string[]) => { code: number; stdout: string; stderr: string };

export const runReg: RegRunner = (args) => {
  const r = Bun.spawnSync(["reg", ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode ?? 1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

export function windowsManifestPath(paths: HomePaths): string {
  return inHome(paths.nativeDir, `${HOST_NAME}.json`);
}

export function windowsLauncherPath(paths: HomePaths): string {
  return inHome(paths.nativeDir, "bsk-native-host.cmd");
}

/** cmd.exe expands %NAME% even inside quotes: a literal percent sign is written %%. */
const cmdq = (s: string) => `"${s.replaceAll("%", "%%")}"`;

export function windowsLauncherScript(home: string, command: string[]): string {
  return [
    "@echo off",
    "rem Written by bsk (bsk native install): Chrome runs this to fetch the secret of this bsk home.",
    `set ${cmdq(`BSK_HOME=${home}`)}`,
    `${command.map(cmdq).join(" ")} native-host %*`,
    "",
  ].join("\r\n");
}

/** The manifest's path a key holds (its default value), or undefined when the key is not there. */
export function readHostKey(key: string, reg: RegRunner = runReg): string | undefined {
  const r = reg(["query", key, "/ve"]);
  if (r.code !== 0) return undefined;
  return /\bREG_SZ[ \t]+(.+?)[ \t]*$/m.exec(r.stdout)?.[1];
}

export interface WindowsRegistration {
  browser: string;
  /** The registry key; the manifest is the same file for every browser. */
  manifest: string;
  state: "written" | "kept" | "skipped";
  note?: string;
}

function writeIfChanged(path: string, text: string): void {
  const current = existsSync(path) ? readFileSync(path, "utf8") : undefined;
  if (current !== text) writeAtomic(path, text, { mode: 0o600, replace: true });
}

/**
 * Writes the launcher, the manifest and each browser's key. `auto` (the daemon at start) leaves a key that names
 * another bsk home's manifest that still exists; `explicit` (bsk native install, doctor --fix) takes it over.
 */
export function registerWindowsHost(opts: {
  paths: HomePaths;
  mode: "auto" | "explicit";
  command: string[];
  manifestText: (launcher: string) => string;
  reg?: RegRunner;
  exists?: (path: string) => boolean;
}): WindowsRegistration[] {
  const reg = opts.reg ?? runReg;
  const exists = opts.exists ?? existsSync;
  ensurePrivateDir(opts.paths.nativeDir);
  const launcher = windowsLauncherPath(opts.paths);
  const manifest = windowsManifestPath(opts.paths);
  writeIfChanged(launcher, windowsLauncherScript(opts.paths.home, opts.command));
  writeIfChanged(manifest, opts.manifestText(launcher));
  return WINDOWS_HOST_KEYS.map(({ browser, key }): WindowsRegistration => {
    const holder = readHostKey(key, reg);
    if (holder === manifest) return { browser, manifest: key, state: "kept" };
    if (opts.mode === "auto" && holder && exists(holder))
      return {
        browser,
        manifest: key,
        state: "skipped",
        note: `registered by another bsk home (${holder}); bsk native install takes it over`,
      };
    const r = reg(["add", key, "/ve", "/t", "REG_SZ", "/d", manifest, "/f"]);
    if (r.code !== 0) return { browser, manifest: key, state: "skipped", note: `reg add failed: ${(r.stderr || r.stdout).trim()}` };
    return { browser, manifest: key, state: "written" };
  });
}

/** Removes the keys that name this home's manifest, then the manifest and the launcher. Returns the keys removed. */
export function unregisterWindowsHost(opts: { paths: HomePaths; reg?: RegRunner }): string[] {
  const reg = opts.reg ?? runReg;
  const manifest = windowsManifestPath(opts.paths);
  const removed: string[] = [];
  for (const { key } of WINDOWS_HOST_KEYS) {
    if (readHostKey(key, reg) !== manifest) continue;
    if (reg(["delete", key, "/f"]).code === 0) removed.push(key);
  }
  rmSync(manifest, { force: true });
  rmSync(windowsLauncherPath(opts.paths), { force: true });
  return removed;
}

/** The browsers whose key does not name this home's manifest (doctor). */
export function windowsUnregistered(paths: HomePaths, reg: RegRunner = runReg): string[] {
  const manifest = windowsManifestPath(paths);
  const ok = existsSync(manifest) && existsSync(windowsLauncherPath(paths));
  return WINDOWS_HOST_KEYS.filter(({ key }) => !ok || readHostKey(key, reg) !== manifest).map((k) => k.browser);
}
