/**
 * The peer of the bench's peer lane: agent-browser (vercel-labs, a native binary driving its own Chromium over CDP),
 * installed on demand into a cache outside the repo ($XDG_CACHE_HOME or ~/.cache, then bsk-bench/agent-browser), pinned.
 * Its state (sockets, pid files) lives in a private HOME under the bench's world, so nothing touches the person's own.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const AGENT_BROWSER_VERSION = "0.41.2";

function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "bsk-bench", "agent-browser");
}

function nativeName(): string {
  const arch = process.arch === "arm64" ? "arm64" : "x64";
  if (process.platform === "win32") return "agent-browser-win32-x64.exe";
  return `agent-browser-${process.platform}-${arch}`;
}

/** The pinned binary, installed with npm (its postinstall, which only marks the binary executable, is not run). */
export async function installAgentBrowser(): Promise<string> {
  const dir = join(cacheDir(), AGENT_BROWSER_VERSION);
  const bin = join(dir, "node_modules/agent-browser/bin", nativeName());
  if (!existsSync(bin)) await npmInstall(dir);
  if (!existsSync(bin)) throw new Error(`agent-browser@${AGENT_BROWSER_VERSION} has no binary for this platform (${bin})`);
  chmodSync(bin, 0o755);
  return bin;
}

async function npmInstall(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), '{ "private": true }\n');
  console.log(`installing agent-browser@${AGENT_BROWSER_VERSION} into ${dir} …`);
  const npm = Bun.spawn(
    ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", `agent-browser@${AGENT_BROWSER_VERSION}`],
    { cwd: dir, stdout: "inherit", stderr: "inherit" },
  );
  if ((await npm.exited) !== 0) throw new Error(`npm install agent-browser@${AGENT_BROWSER_VERSION} failed`);
}

export interface Peer {
  /** The argv of one agent-browser call in the bench's session (as a whole process, like bsk's). */
  argv(args: string[]): string[];
  env: Record<string, string>;
  run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** agent-browser on its own headless Chromium (the system one bsk's bench uses), in session `bench`. */
export function agentBrowser(bin: string, home: string, chromium: string): Peer {
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    HOME: home,
    AGENT_BROWSER_SESSION: "bench",
    AGENT_BROWSER_EXECUTABLE_PATH: chromium,
  };
  if (process.getuid?.() === 0) env.AGENT_BROWSER_ARGS = "--no-sandbox";
  const peer: Peer = {
    env,
    argv: (args) => [bin, ...args],
    async run(args) {
      const p = Bun.spawn([bin, ...args], { env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
      const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { code, stdout, stderr };
    },
  };
  return peer;
}
