/**
 * The Wine of the windows-x64 lane (scripts/platform/windows-x64.ts and its parts): the prefix set up by
 * setup-wine.sh, running bsk.exe in it with each step's stderr in a file, and the path mapping between Linux and
 * the prefix's drives.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Wine {
  /** wine64 itself. */
  wine: string;
  wineserver: string;
  prefix: string;
  env: Record<string, string>;
  /** Where each step's stderr is written (removed at the end). */
  scratch: string;
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** No step takes this long unless it hangs; a hung step is killed and named. */
export const STEP_LIMIT_MS = 60_000;

function wineBinary(name: string): string {
  const found = Bun.which(name) ?? `/usr/lib/wine/${name}`;
  if (!existsSync(found)) throw new Error(`${name} is missing after setup-wine.sh`);
  return found;
}

export function setupWine(root: string, log: (line: string) => void): Wine {
  const t0 = performance.now();
  const setup = Bun.spawnSync(["bash", join(root, "scripts/platform/setup-wine.sh")], { stdout: "pipe", stderr: "pipe" });
  if (setup.exitCode !== 0)
    throw new Error(`scripts/platform/setup-wine.sh exited ${setup.exitCode}:\n${setup.stderr.toString()}${setup.stdout.toString()}`);
  const prefix = setup.stdout.toString().trim().split("\n").at(-1)!;
  log(`wine ready in ${Math.round(performance.now() - t0)} ms (prefix ${prefix})`);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("BSK_") && k !== "DISPLAY") env[k] = v;
  Object.assign(env, {
    WINEPREFIX: prefix,
    WINEDEBUG: "-all",
    WINEDLLOVERRIDES: "mscoree,mshtml=",
    // The kernel picks the daemon's port; no native host registration or update check from the lane.
    BSK_PORT: "0",
    BSK_NATIVE_HOST: "off",
    BSK_AUTO_UPDATE: "off",
  });
  const scratch = mkdtempSync(join(tmpdir(), "bsk-wine-lane-"));
  return { wine: wineBinary("wine64"), wineserver: wineBinary("wineserver"), prefix, env, scratch };
}

/**
 * Run bsk.exe under Wine; stdout is a pipe read to EOF (a detached daemon holding it would hang this step), stderr
 * goes to a file: Wine starts every process with the Unix stderr of the one that created it (its debug channel), so
 * a daemon the CLI spawns would hold a stderr pipe open until it exits: Wine's doing, not bsk's, and not on Windows.
 */
export async function bsk(w: Wine, bin: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const errFile = join(w.scratch, `stderr-${++runs}.txt`);
  const proc = Bun.spawn([w.wine, bin, ...args], { env: { ...w.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: Bun.file(errFile) });
  const limit = setTimeout(() => proc.kill("SIGKILL"), STEP_LIMIT_MS);
  try {
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    return { code, stdout, stderr: existsSync(errFile) ? readFileSync(errFile, "utf8") : "" };
  } finally {
    clearTimeout(limit);
  }
}
let runs = 0;

export function json(step: string, ran: Ran): any {
  try {
    return JSON.parse(ran.stdout);
  } catch {
    throw new Error(`${step}: exit ${ran.code}, not JSON:\n${ran.stdout}${ran.stderr}`);
  }
}

export async function ok(w: Wine, bin: string, step: string, args: string[], env: Record<string, string> = {}): Promise<any> {
  const ran = await bsk(w, bin, [...args, "--json"], env);
  const out = json(step, ran);
  if (ran.code !== 0 || !out.ok) throw new Error(`${step}: exit ${ran.code}:\n${ran.stdout}${ran.stderr}`);
  return out.result;
}

export function expectThat(step: string, good: boolean, what: string, got: unknown): void {
  if (!good) throw new Error(`${step}: expected ${what}, got ${JSON.stringify(got)}`);
}

/** End every Wine process of the lane's prefix (and so any daemon a failed run left) and wait for them. */
export function endWine(w: Wine): void {
  Bun.spawnSync([w.wineserver, "-k"], { env: w.env });
  Bun.spawnSync([w.wineserver, "-w"], { env: w.env });
}

/** The bsk homes of the prefix's Windows users, as Linux paths (drive_c/users/<user>/AppData/Local/bsk). */
export function homesInPrefix(prefix: string): string[] {
  const users = join(prefix, "drive_c/users");
  if (!existsSync(users)) return [];
  return readdirSync(users)
    .map((u) => join(users, u, "AppData/Local/bsk"))
    .filter((h) => existsSync(h));
}

/** C:\users\root\AppData\Local\bsk → <prefix>/drive_c/users/root/AppData/Local/bsk. */
export function linuxPath(prefix: string, windows: string): string {
  const m = /^[Cc]:\\(.*)$/.exec(windows);
  if (!m) throw new Error(`${windows} is not on drive C:`);
  return join(prefix, "drive_c", ...m[1]!.split("\\"));
}

/** A Linux path as Wine's programs see it, through drive Z: (the Linux root). */
export function winePath(linux: string): string {
  return `Z:${linux.replaceAll("/", "\\")}`;
}

export function readIfThere(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}
