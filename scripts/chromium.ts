/**
 * Launch a Chromium with the bsk extension loaded, on a given profile. Used by the e2e tests, the demo and the bench.
 *
 * Debian's Chromium honours --load-extension. Branded Google Chrome 137+ ignores it, so for Chrome we start with
 * --remote-debugging-pipe --enable-unsafe-extension-debugging and load the extension with CDP Extensions.loadUnpacked.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { dirname } from "node:path";

export interface LaunchOptions {
  extensionDir: string;
  /** Other unpacked extensions loaded next to bsk (a test's stand-in for a password manager). */
  extraExtensions?: string[];
  profileDir: string;
  urls?: string[];
  /** Default: headless unless HEADLESS=off or a DISPLAY is set and headless is false. */
  headless?: boolean;
  /** Also expose CDP on a loopback port (read back as `cdpPort`), for tests that act as the person. */
  cdp?: boolean;
  logFile?: string;
  binary?: string;
  /** An X display to show the browser on (headed, with the browser's own dialogs and bubbles), e.g. from Xvfb. */
  display?: string;
  /** Extra environment for the browser, e.g. its own HOME (whose ~/.pki/nssdb holds the certificates it trusts). */
  env?: Record<string, string>;
  /** The browser's UI language (`--lang`, e.g. zh-CN): what chrome.i18n and the extension's _locales follow. */
  lang?: string;
}

export interface Browser {
  pid: number;
  binary: string;
  branded: boolean;
  cdpPort?: number;
  close(): Promise<void>;
}

const CANDIDATES = [
  "/usr/lib/chromium/chromium",
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/opt/google/chrome/chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

export function findChromium(): string | null {
  const explicit = process.env.CHROMIUM;
  if (explicit) return existsSync(explicit) ? explicit : null;
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

export function isBranded(binary: string): boolean {
  return /google-chrome|Google Chrome|\/chrome$/.test(binary) && !/chromium/i.test(binary);
}

export async function launchChromium(opts: LaunchOptions): Promise<Browser> {
  const binary = opts.binary ?? findChromium();
  if (!binary) {
    throw new Error("Chromium not found: install it (apt-get install -y chromium) or set CHROMIUM=/path/to/chrome");
  }
  const branded = isBranded(binary);
  mkdirSync(opts.profileDir, { recursive: true });
  const flags = chromiumFlags(opts, branded);

  const log = opts.logFile ?? `${opts.profileDir}/chromium.log`;
  const logFd = (await import("node:fs")).openSync(log, "a");
  const stdio: ("ignore" | "pipe" | number)[] = ["ignore", logFd, logFd];
  if (branded) stdio.push("pipe", "pipe");
  const env = { ...process.env, ...(opts.display && { DISPLAY: opts.display }), ...opts.env };
  const child = spawn(binary, [...flags, ...(opts.urls ?? [])], { stdio, detached: false, env });
  if (!child.pid) throw new Error(`could not start ${binary}`);

  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      removeSingletonDir(opts.profileDir);
      resolve();
    }),
  );
  if (branded) {
    const dirs = [opts.extensionDir, ...(opts.extraExtensions ?? [])];
    for (const [i, dir] of dirs.entries()) await loadUnpackedOverPipe(child, dir, i + 1);
  }
  const browser: Browser = {
    pid: child.pid,
    binary,
    branded,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
  if (opts.cdp) browser.cdpPort = await readDevToolsPort(opts.profileDir, exited);
  return browser;
}

/** The command-line flags launchChromium starts a browser with (the profile, the extension, headless or not). */
export function chromiumFlags(opts: LaunchOptions, branded: boolean): string[] {
  const headless = opts.display
    ? false
    : (opts.headless ?? (process.env.HEADLESS !== "off" && !(process.env.DISPLAY && process.env.HEADLESS === "auto")));
  const flags = [
    `--user-data-dir=${opts.profileDir}`,
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--password-store=basic",
  ];
  if (branded) flags.push("--remote-debugging-pipe", "--enable-unsafe-extension-debugging");
  else flags.push(`--load-extension=${[opts.extensionDir, ...(opts.extraExtensions ?? [])].join(",")}`);
  if (headless) flags.push("--headless=new", "--screen-info={1920x1080}");
  if (process.getuid?.() === 0) flags.push("--no-sandbox");
  if (opts.lang) flags.push(`--lang=${opts.lang}`);
  if (opts.cdp) flags.push("--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1");
  return flags;
}

/**
 * Chromium keeps its profile's single-instance socket in a folder of the temp folder (org.chromium.Chromium.*,
 * linked from <profile>/SingletonSocket) and leaves it behind when it is stopped; it goes with the browser.
 */
export function removeSingletonDir(profileDir: string): void {
  let target: string;
  try {
    target = readlinkSync(`${profileDir}/SingletonSocket`);
  } catch {
    return;
  }
  const dir = dirname(target);
  if (/\/org\.chromium\.Chromium\.[^/]+$/.test(dir)) rmSync(dir, { recursive: true, force: true });
}

/** Chromium writes the chosen port to <profile>/DevToolsActivePort once it listens. */
async function readDevToolsPort(profileDir: string, exited: Promise<void>): Promise<number> {
  const file = `${profileDir}/DevToolsActivePort`;
  let dead = false;
  void exited.then(() => (dead = true));
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && !dead) {
    if (existsSync(file)) {
      const port = Number(readFileSync(file, "utf8").split("\n")[0]);
      if (port > 0) return port;
    }
    await Bun.sleep(25);
  }
  throw new Error(`Chromium did not open its DevTools port (see ${profileDir}/chromium.log)`);
}

/** CDP over fds 3 (to the browser) and 4 (from it): NUL-delimited JSON. */
async function loadUnpackedOverPipe(child: ChildProcess, path: string, id: number): Promise<void> {
  const toBrowser = child.stdio[3] as NodeJS.WritableStream;
  const fromBrowser = child.stdio[4] as NodeJS.ReadableStream;
  toBrowser.write(`${JSON.stringify({ id, method: "Extensions.loadUnpacked", params: { path } })}\0`);
  await new Promise<void>((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error("Extensions.loadUnpacked got no answer")), 15_000);
    const onData = (chunk: Buffer) => {
      buf += chunk.toString();
      let i: number;
      while ((i = buf.indexOf("\0")) >= 0) {
        const msg = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (msg.id === id) {
          clearTimeout(timer);
          fromBrowser.off("data", onData);
          if (msg.error) reject(new Error(`Extensions.loadUnpacked: ${msg.error.message}`));
          else resolve();
        }
      }
    };
    fromBrowser.on("data", onData);
  });
}
