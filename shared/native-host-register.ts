/**
 * Registering bsk's native messaging host with Chromium-family browsers, so the extension can fetch this install's
 * secret once (chrome.runtime.sendNativeMessage) instead of the person typing a pairing code.
 *
 * Per browser profile root, `<root>/NativeMessagingHosts/com.bsk.bridge.json` names a launcher script in
 * `$BSK_HOME/native/` (Chrome passes the caller's origin as an argument, and starts it with the browser's
 * environment, so the script fixes BSK_HOME and the binary). Only our extension ids may call it.
 *
 * `auto` (the daemon at start): only roots whose browser directory exists, and never over a manifest that another
 * live bsk home registered. `explicit` (bsk native install): Chromium and Chrome even before first use (and the
 * other browsers found), taking over whatever was there; or, given `--profile-dir`, only those directories.
 *
 * Linux Snap and Flatpak browsers keep their profile root in their sandbox's folder; it is registered only when it
 * exists (never created). The browser starts the host inside its sandbox, which may not see the launcher, the bsk
 * binary or $BSK_HOME: docs/install.md says what works (a pairing code always does).
 *
 * Windows: the registry instead of folders (native-host-windows.ts); the same manifest text.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { EXTENSION_ID } from "../protocol/extension-identity.ts";
import { writeAtomic } from "./atomic-file.ts";
import { isCompiled } from "./compiled.ts";
import { ensurePrivateDir, readJsonFile } from "./fs-util.ts";
import type { HomePaths } from "./home.ts";
import { HOST_NAME, registerWindowsHost, unregisterWindowsHost, windowsLauncherPath } from "./native-host-windows.ts";

export { HOST_NAME };
const MANIFEST_FILE = `${HOST_NAME}.json`;
const LAUNCHER_FILE = "bsk-native-host";

type Env = Record<string, string | undefined>;

export interface BrowserRoot {
  browser: string;
  /** The browser's user-data directory (a profile root); the manifest goes in its NativeMessagingHosts/. */
  dir: string;
  /** A Snap or Flatpak package: registered only when `dir` exists, and its host runs inside the sandbox. */
  sandbox?: "snap" | "flatpak";
}

const SANDBOX_NOTE = "a sandboxed browser may not be able to start it: if its popup stays Not paired, use bsk daemon pair";

/** Flatpak app ids of Chromium-family browsers and their profile root under `~/.var/app/<id>/config/`. */
const FLATPAKS: [browser: string, appId: string, dir: string][] = [
  ["chromium", "org.chromium.Chromium", "chromium"],
  ["chrome", "com.google.Chrome", "google-chrome"],
  ["brave", "com.brave.Browser", "BraveSoftware/Brave-Browser"],
  ["edge", "com.microsoft.Edge", "microsoft-edge"],
  ["vivaldi", "com.vivaldi.Vivaldi", "vivaldi"],
];

/** Linux Snap and Flatpak profile roots (Snap's Chromium sets its config home to `~/snap/chromium/common`). */
function sandboxedRoots(home: string): BrowserRoot[] {
  return [
    { browser: "chromium-snap", dir: join(home, "snap/chromium/common/chromium"), sandbox: "snap" },
    ...FLATPAKS.map(([browser, id, dir]) => ({
      browser: `${browser}-flatpak`,
      dir: join(home, ".var/app", id, "config", dir),
      sandbox: "flatpak" as const,
    })),
  ];
}

/** Where Chromium-family browsers keep their default user-data directory, on this platform. */
export function defaultRoots(env: Env = process.env, platform = process.platform): BrowserRoot[] {
  const home = env.HOME || env.USERPROFILE || "";
  if (!home) return [];
  if (platform === "darwin") {
    const base = join(home, "Library/Application Support");
    return [
      { browser: "chromium", dir: join(base, "Chromium") },
      { browser: "chrome", dir: join(base, "Google/Chrome") },
      { browser: "chrome-beta", dir: join(base, "Google/Chrome Beta") },
      { browser: "brave", dir: join(base, "BraveSoftware/Brave-Browser") },
      { browser: "edge", dir: join(base, "Microsoft Edge") },
      { browser: "vivaldi", dir: join(base, "Vivaldi") },
    ];
  }
  if (platform === "win32") return []; // the registry, not files: pair with a code there
  const config = env.XDG_CONFIG_HOME || join(home, ".config");
  return [
    { browser: "chromium", dir: join(config, "chromium") },
    { browser: "chrome", dir: join(config, "google-chrome") },
    { browser: "chrome-beta", dir: join(config, "google-chrome-beta") },
    { browser: "brave", dir: join(config, "BraveSoftware/Brave-Browser") },
    { browser: "edge", dir: join(config, "microsoft-edge") },
    { browser: "vivaldi", dir: join(config, "vivaldi") },
    ...sandboxedRoots(home),
  ];
}

export function manifestPath(root: string): string {
  return join(root, "NativeMessagingHosts", MANIFEST_FILE);
}

export function launcherPath(paths: HomePaths): string {
  if (process.platform === "win32") return windowsLauncherPath(paths);
  return join(paths.nativeDir, LAUNCHER_FILE);
}

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command that runs this same bsk (the compiled binary, or bun with the CLI's entry in a checkout). */
export function bskCommand(): string[] {
  if (isCompiled()) return [process.execPath];
  return [process.execPath, join(import.meta.dir, "../cli/main.ts")];
}

export function launcherScript(home: string, command: string[]): string {
  return [
    "#!/bin/sh",
    "# Written by bsk (bsk native install): Chrome runs this to fetch the secret of this bsk home.",
    `BSK_HOME=${shq(home)} exec ${command.map(shq).join(" ")} native-host "$@"`,
    "",
  ].join("\n");
}

export interface Registration {
  browser: string;
  manifest: string;
  /** written; kept (already ours and current); skipped (another bsk home holds it, auto mode only). */
  state: "written" | "kept" | "skipped";
  note?: string;
  sandbox?: "snap" | "flatpak";
}

function writeLauncher(paths: HomePaths): string {
  ensurePrivateDir(paths.nativeDir);
  const path = launcherPath(paths);
  const text = launcherScript(paths.home, bskCommand());
  const current = existsSync(path) ? readFileSync(path, "utf8") : undefined;
  if (current !== text) writeAtomic(path, text, { mode: 0o700, replace: true });
  chmodSync(path, 0o700);
  return path;
}

function manifestText(launcher: string, extensionIds: readonly string[]): string {
  const origins = [...new Set([EXTENSION_ID, ...extensionIds])].map((id) => `chrome-extension://${id}/`);
  return `${JSON.stringify(
    {
      name: HOST_NAME,
      description: "bsk: lets the bsk extension fetch this computer's bsk secret",
      path: launcher,
      type: "stdio",
      allowed_origins: origins,
    },
    null,
    2,
  )}\n`;
}

/**
 * Writes the launcher and the manifests. `explicitRoots` (profile directories) are always written; the default
 * roots follow `mode`. Throws only when the launcher cannot be written; a root that fails is reported as skipped.
 */
export function registerNativeHost(opts: {
  paths: HomePaths;
  mode: "auto" | "explicit";
  explicitRoots?: string[];
  extensionIds?: readonly string[];
  env?: Env;
  /** Whose places (defaultRoots): this OS unless a test says otherwise. */
  platform?: NodeJS.Platform;
}): Registration[] {
  if ((opts.platform ?? process.platform) === "win32") {
    const ids = opts.extensionIds ?? [];
    return registerWindowsHost({ ...opts, command: bskCommand(), manifestText: (launcher) => manifestText(launcher, ids) });
  }
  const launcher = writeLauncher(opts.paths);
  const text = manifestText(launcher, opts.extensionIds ?? []);
  const roots: (BrowserRoot & { force: boolean; create: boolean })[] = [];
  const onlyExplicit = opts.mode === "explicit" && (opts.explicitRoots?.length ?? 0) > 0;
  for (const r of onlyExplicit ? [] : defaultRoots(opts.env, opts.platform)) {
    const always = opts.mode === "explicit" && !r.sandbox && (r.browser === "chromium" || r.browser === "chrome");
    if (always || existsSync(r.dir)) roots.push({ ...r, force: opts.mode === "explicit", create: always });
  }
  for (const dir of opts.explicitRoots ?? []) roots.push({ browser: "profile", dir, force: true, create: true });

  const out: Registration[] = [];
  for (const r of roots) {
    const manifest = manifestPath(r.dir);
    const sandbox = r.sandbox ? { sandbox: r.sandbox, note: SANDBOX_NOTE } : {};
    try {
      const existing = readJsonFile(manifest) as { path?: unknown } | undefined;
      const holder = typeof existing?.path === "string" ? existing.path : undefined;
      if (!r.force && holder && holder !== launcher && existsSync(holder)) {
        out.push({
          browser: r.browser,
          manifest,
          state: "skipped",
          ...sandbox,
          note: `registered by another bsk home (${holder}); bsk native install takes it over`,
        });
        continue;
      }
      if (existsSync(manifest) && readFileSync(manifest, "utf8") === text) {
        out.push({ browser: r.browser, manifest, state: "kept", ...sandbox });
        continue;
      }
      if (!r.create && !existsSync(r.dir)) continue;
      mkdirSync(dirname(manifest), { recursive: true });
      writeAtomic(manifest, text, { mode: 0o644, replace: true });
      out.push({ browser: r.browser, manifest, state: "written", ...sandbox });
    } catch (err) {
      out.push({ browser: r.browser, manifest, state: "skipped", ...sandbox, note: (err as Error).message });
    }
  }
  return out;
}

/** Removes the manifests that point at this home's launcher (default roots and `explicitRoots`), and the launcher. */
export function unregisterNativeHost(opts: {
  paths: HomePaths;
  explicitRoots?: string[];
  env?: Env;
  platform?: NodeJS.Platform;
}): string[] {
  if ((opts.platform ?? process.platform) === "win32") return unregisterWindowsHost(opts);
  const launcher = launcherPath(opts.paths);
  const removed: string[] = [];
  for (const dir of [...defaultRoots(opts.env, opts.platform).map((r) => r.dir), ...(opts.explicitRoots ?? [])]) {
    const manifest = manifestPath(dir);
    const existing = readJsonFile(manifest) as { path?: unknown } | undefined;
    if (existing?.path !== launcher) continue;
    rmSync(manifest, { force: true });
    removed.push(manifest);
  }
  rmSync(launcher, { force: true });
  return removed;
}
