/**
 * A private bsk world for the demo and the bench: its own $BSK_HOME, daemon port, fixture site and a fresh
 * Chromium profile with the built extension, so nothing touches the person's real daemon or browser.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_ID } from "../protocol/extension-identity.ts";
import { startFixtureServer, type FixtureServer } from "./fixture-server.ts";
import { launchChromium, type Browser } from "./chromium.ts";

export const ROOT = join(import.meta.dir, "..");
export const BSK = join(ROOT, "dist/bsk");

export interface PrivateWorld {
  home: string;
  /** The daemon's extension port: 0 until startDaemon() has the kernel pick one. */
  port: number;
  env: Record<string, string>;
  fixtures: FixtureServer;
  browser?: Browser;
  /** `bsk daemon start` on a port the kernel picks (never probed free first: the browser's own connections can take it). */
  startDaemon(): Promise<void>;
  launchBrowser(): Promise<Browser>;
  /** Lets the extension in this world's profile fetch its secret through native messaging (trust both ways). */
  trustProfile(): Promise<void>;
  run(args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }>;
  /** Stops everything; keeps $BSK_HOME (logs, profile) when asked, e.g. after a failure. */
  dispose(opts?: { keepHome?: boolean }): Promise<void>;
}

export async function privateWorld(prefix: string): Promise<PrivateWorld> {
  const home = mkdtempSync(`/tmp/${prefix}-`);
  const fixtures = startFixtureServer();
  // The native messaging host is registered for this world's profile only, never with the machine's browsers.
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    BSK_HOME: home,
    BSK_NATIVE_HOST: "off",
  };
  delete env.BSK_SESSION;
  delete env.BSK_AUTO_START;
  const world: PrivateWorld = {
    home,
    port: 0,
    env,
    fixtures,
    async startDaemon() {
      const r = await world.run(["daemon", "start", "--port", "0", "--json"]);
      if (r.code !== 0) throw new Error(`bsk daemon start failed: ${r.stderr}`);
      world.port = (JSON.parse(r.stdout) as { result: { ws_port: number } }).result.ws_port;
      // A daemon started again later (auto-start, a restart) binds the same port: the extension dials that one.
      env.BSK_PORT = String(world.port);
    },
    async launchBrowser() {
      if (!world.port) throw new Error("start the daemon first: the browser is pointed at its port");
      await world.trustProfile();
      world.browser = await launchChromium({
        extensionDir: join(ROOT, "dist/extension"),
        profileDir: join(home, "profile"),
        urls: [`chrome-extension://${EXTENSION_ID}/connect.html?port=${world.port}&label=${prefix}`],
      });
      return world.browser;
    },
    async trustProfile() {
      const r = await world.run(["native", "install", "--profile-dir", join(home, "profile")]);
      if (r.code !== 0) throw new Error(`bsk native install failed: ${r.stderr}`);
    },
    async run(args) {
      const t0 = performance.now();
      const proc = Bun.spawn([BSK, ...args], { env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { code, stdout, stderr, ms: performance.now() - t0 };
    },
    async dispose(opts = {}) {
      await world.run(["daemon", "stop"]);
      await world.browser?.close();
      fixtures.stop();
      if (!opts.keepHome) rmSync(home, { recursive: true, force: true });
    },
  };
  return world;
}
