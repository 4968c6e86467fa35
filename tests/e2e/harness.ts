/**
 * One isolated bsk world per test file: its own $BSK_HOME, daemon port, fixture site and Chromium profile,
 * driven only through the compiled dist/bsk binary, as an agent would.
 */
import { afterAll, beforeAll } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { launchChromium, type Browser } from "../../scripts/chromium.ts";
import { startFixtureServer, type FixtureServer } from "../../scripts/fixture-server.ts";
import { Person } from "./person.ts";
import { tempDir } from "../temp.ts";
import { tearDown } from "../teardown.ts";

export const ROOT = join(import.meta.dir, "../..");
export const BSK = join(ROOT, "dist/bsk");
export const EXTENSION_DIR = join(ROOT, "dist/extension");

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** Parsed stdout when the command ran with --json. */
  json: any;
}

export interface World {
  home: string;
  /** The world's folder for what a test has bsk write (`--out` it: a default-named file lands in it); goes with the world. */
  out: string;
  port: number;
  env: Record<string, string>;
  fixtures: FixtureServer;
  browser: Browser;
  person: Person;
  bsk(args: string[], opts?: { env?: Record<string, string>; stdin?: string }): Promise<Run>;
  /** Run and expect exit 0 with --json; returns the result object. */
  ok(args: string[]): Promise<any>;
  startSession(extra?: string[]): Promise<string>;
  stop(): Promise<void>;
}

export { freePort } from "../ports.ts";

/** Short durations so every timer in a test fires quickly (SPEC §8). */
export const TEST_DURATIONS: Record<string, string> = {
  BSK_HANDSHAKE_MS: "5000",
  BSK_HEARTBEAT_MS: "2000",
  BSK_BROWSER_SILENCE_MS: "20000",
  BSK_BROWSER_WAIT_MS: "15000",
  BSK_READOPT_WAIT_MS: "15000",
  BSK_OWNER_POLL_MS: "100",
  // The daemon must not register its native messaging host with the machine's real browsers; each world
  // registers it for its own profile directory instead (bsk native install --profile-dir).
  BSK_NATIVE_HOST: "off",
};

export interface WorldOptions {
  env?: Record<string, string>;
  browserUrls?: (f: FixtureServer) => string[];
  /** Written as the profile's Default/Preferences before Chromium starts (e.g. download settings); `home` is $BSK_HOME. */
  prefs?: (home: string) => Record<string, unknown>;
  /** Show the browser on this X display (headed: the browser's own dialogs exist), e.g. from xvfb.ts. */
  display?: string;
  /** Extra environment for Chromium alone (e.g. a HOME whose NSS database trusts a test CA). */
  browserEnv?: Record<string, string>;
  /** The browser's UI language (`--lang`), e.g. zh-CN for the extension's Chinese texts. */
  browserLang?: string;
  /** Other unpacked extensions the browser loads next to bsk (e.g. tests/fixtures/foreign-extension). */
  extraExtensions?: string[];
}

export async function startWorld(opts: WorldOptions = {}): Promise<World> {
  const home = tempDir("bsk-e2e-");
  const out = tempDir("bsk-e2e-out-");
  const fixtures = startFixtureServer();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    BSK_HOME: home,
    ...TEST_DURATIONS,
    ...opts.env,
  };
  delete env.BSK_SESSION;
  delete env.BSK_OWNER_PID;
  delete env.BSK_AUTO_START;

  const bsk: World["bsk"] = async (args, o = {}) => {
    const proc = Bun.spawn([BSK, ...args], {
      env: { ...env, ...o.env },
      stdin: o.stdin === undefined ? "ignore" : new Blob([o.stdin]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    let json: unknown;
    if (args.includes("--json")) {
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
    }
    return { code, stdout, stderr, json };
  };

  const ok = async (args: string[]) => {
    const r = await bsk([...args, "--json"]);
    if (r.code !== 0 || !r.json?.ok) {
      throw new Error(
        `bsk ${args.join(" ")} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}\nthe daemon's log ends:\n${daemonLogTail(home)}`,
      );
    }
    return r.json.result;
  };

  let browser: Browser | undefined;
  let person: Person | undefined;
  // What the world started is stopped and its home removed, also when it fails to start (nothing else would).
  const stop = () =>
    tearDown([
      () => person?.close(),
      () => bsk(["daemon", "stop"]),
      () => browser?.close(),
      () => fixtures.stop(),
      // A native host Chromium started just before it closed can still write the home's trust.key (and so make the
      // folder again) after it is removed: the home goes once nothing runs for it any more.
      () => until("the processes of this world's home to end", () => processesOf(home).length === 0 || undefined),
      () => rmSync(home, { recursive: true, force: true }),
      () => rmSync(out, { recursive: true, force: true }),
    ]);
  try {
    // The kernel picks the daemon's port (a port probed free and bound later can be taken meanwhile, e.g. by the
    // browser's own outgoing connections); a daemon this world restarts later binds the same one again (BSK_PORT).
    const started = await bsk(["daemon", "start", "--port", "0", "--json"]);
    if (started.code !== 0) throw new Error(`daemon start failed: ${started.stderr}`);
    const port = (started.json as { result: { ws_port: number } }).result.ws_port;
    env.BSK_PORT = String(port);
    // Trust is bootstrapped for real: the extension fetches this home's secret through native messaging.
    const profileDir = join(home, "profile");
    const native = await bsk(["native", "install", "--profile-dir", profileDir]);
    if (native.code !== 0) throw new Error(`native install failed: ${native.stderr}`);

    if (opts.prefs) {
      mkdirSync(join(home, "profile/Default"), { recursive: true });
      writeFileSync(join(home, "profile/Default/Preferences"), JSON.stringify(opts.prefs(home)));
    }
    const connectUrl = `chrome-extension://${EXTENSION_ID}/connect.html?port=${port}&label=e2e`;
    browser = await launchChromium({
      extensionDir: EXTENSION_DIR,
      profileDir,
      urls: [connectUrl],
      cdp: true,
      display: opts.display,
      ...(opts.browserEnv && { env: opts.browserEnv }),
      ...(opts.browserLang && { lang: opts.browserLang }),
      ...(opts.extraExtensions && { extraExtensions: opts.extraExtensions }),
    });
    person = await Person.connect(browser.cdpPort!);
    // Headless Chromium takes one start-up URL; the person's other tabs are opened afterwards.
    for (const url of opts.browserUrls?.(fixtures) ?? []) await person.openTab(url);

    return {
      home,
      out,
      port,
      env,
      fixtures,
      browser,
      person,
      bsk,
      ok,
      async startSession(extra = []) {
        const r = await ok(["session", "start", "--no-focus", ...extra]);
        return r.session_id as string;
      },
      stop,
    };
  } catch (e) {
    await stop().catch(() => {});
    throw e;
  }
}

/**
 * Pids of the processes that run for `home`: its daemon and `bsk native-host` processes (BSK_HOME is the home) and
 * Chromium's (its profile is in the home). `only`: those with this word in their command line (e.g. "native-host").
 */
export function processesOf(home: string, only?: string): number[] {
  const pids: number[] = [];
  if (!existsSync("/proc")) return pids;
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      if (only && !cmd.includes(only)) continue;
      const env = readFileSync(`/proc/${d}/environ`, "utf8").split("\0");
      if (env.includes(`BSK_HOME=${home}`) || cmd.some((a) => a.includes(`${home}/`))) pids.push(Number(d));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

/** The daemon log's last `lines` lines (it is written in batches: the last moments may not be there yet). */
export function daemonLogTail(home: string, lines = 40): string {
  const log = join(home, "logs", "daemon.log");
  return existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").slice(-lines).join("\n") : "(no daemon log)";
}

/**
 * The one world of a test file: started before its tests (with a session when asked), stopped after them; `ready`
 * hands the world and the session id to the file's own variables.
 */
export function useWorld(opts: WorldOptions & { session?: boolean }, ready: (w: World, s: string) => void): void {
  let world: World | undefined;
  beforeAll(async () => {
    world = await startWorld(opts);
    ready(world, opts.session ? await world.startSession() : "");
  }, 60_000);
  afterAll(async () => {
    await world?.stop();
  });
}

/** Wait for a condition that is checked by polling something outside this process (a file, a pid, a page). */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** The ref a snapshot's text gives the line that contains `text`; throws with the snapshot when there is none. */
export function refIn(snapshot: string, text: string): string {
  const ref = snapshot
    .split("\n")
    .find((l) => l.includes(text))
    ?.match(/@e\d+/)?.[0];
  if (!ref) throw new Error(`no ref for ${text} in:\n${snapshot}`);
  return ref;
}
