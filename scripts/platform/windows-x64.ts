/**
 * The windows-x64 lane: bsk.exe proves itself under Wine on this Linux machine. Wine comes from
 * scripts/platform/setup-wine.sh (Debian 12's Wine 8 with a stand-in bcryptprimitives.dll; idempotent, run here
 * when the prefix is not ready). Each step runs the real bsk.exe in a dedicated Wine prefix, headless, with its
 * default home (%LOCALAPPDATA%\bsk), and throws naming what failed. The Wine processes of that prefix are ended
 * before (leftovers of a run that crashed) and after. The last two steps have files of their own: a real session
 * with this machine's Chromium (windows-session.ts; needs dist/extension from npm run build) and the update swap
 * of a running bsk.exe (windows-update.ts); wine.ts runs bsk.exe in the prefix.
 *
 * Run on its own: bun scripts/platform/windows-x64.ts [path/to/bsk.exe] (default: builds dist/windows-x64/bsk.exe).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { removeTree } from "../../shared/fs-util.ts";
import { waitForFile } from "./run.ts";
import {
  bsk,
  endWine,
  expectThat,
  homesInPrefix,
  json,
  linuxPath,
  ok,
  readIfThere,
  setupWine,
  STEP_LIMIT_MS,
  winePath,
  type Wine,
} from "./wine.ts";
import { proveSession } from "./windows-session.ts";
import { buildUpdateBinaries, proveUpdate } from "./windows-update.ts";

export interface LaneContext {
  root: string;
  bin: string;
  log: (line: string) => void;
}

/** The registry keys bsk native install writes (shared/native-host-windows.ts), read back with Wine's own reg.exe. */
const HOST_KEYS = ["Google\\Chrome", "Chromium", "Microsoft\\Edge", "BraveSoftware\\Brave-Browser"].map(
  (vendor) => `HKCU\\Software\\${vendor}\\NativeMessagingHosts\\com.bsk.bridge`,
);

function regValue(w: Wine, key: string): string | undefined {
  const r = Bun.spawnSync([w.wine, "reg", "query", key, "/ve"], { env: w.env, stdout: "pipe", stderr: "ignore" });
  return r.exitCode === 0 ? /REG_SZ[ \t]+(.+?)[ \t]*$/m.exec(r.stdout.toString())?.[1] : undefined;
}

/** scripts/platform/pipe-peer.ts compiled for windows-x64: a peer on the pipe that holds no link key. */
async function buildPipePeer(root: string, scratch: string): Promise<string> {
  const exe = join(scratch, "pipe-peer.exe");
  const args = ["build", "--compile", "--target=bun-windows-x64", join(root, "scripts/platform/pipe-peer.ts"), "--outfile", exe];
  const proc = Bun.spawn([process.execPath, ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if ((await proc.exited) !== 0) throw new Error(`building pipe-peer.exe failed:\n${await new Response(proc.stderr).text()}`);
  return exe;
}

/** A client without the link key sends system.shutdown first: refused (unproven_client); the daemon serves on. */
async function proveKeylessClient(w: Wine, bin: string, peer: string, pipe: string, pid: number, step: (line: string) => void) {
  const sent = await bsk(w, peer, ["send", pipe, JSON.stringify({ id: "k1", method: "system.shutdown" })]);
  const lines = sent.stdout.trim().split("\n").filter(Boolean);
  const reply = lines.length === 1 ? JSON.parse(lines[0]!) : undefined;
  expectThat(
    "keyless client",
    sent.code === 0 && reply?.id === null && reply.error?.code === "permission_denied" && reply.error.data?.reason === "unproven_client",
    "one permission_denied frame (unproven_client), then the pipe closed",
    sent,
  );
  const status = await ok(w, bin, "status after the keyless client", ["daemon", "status"]);
  expectThat("keyless client", status.daemon?.pid === pid, `the daemon (pid ${pid}) still serving`, status);
  step(`a keyless client's system.shutdown on the pipe refused (permission_denied, unproven_client); pid ${pid} still answers status`);
}

/**
 * A listener on the daemon's pipe name while no daemon runs (on Windows another user can take the name first):
 * bsk.exe type refuses it (unproven_daemon) and the impostor receives the hello and nothing else.
 */
async function proveImpostor(w: Wine, bin: string, peer: string, pipe: string, step: (line: string) => void) {
  const log = join(w.scratch, "impostor.log");
  const impostor = Bun.spawn([w.wine, peer, "listen", pipe, winePath(log)], {
    env: w.env,
    stdin: "ignore",
    stdout: Bun.file(join(w.scratch, "impostor-out.txt")),
    stderr: Bun.file(join(w.scratch, "impostor-err.txt")),
  });
  try {
    await waitForFile(`${log}.ready`, impostor.exited, STEP_LIMIT_MS).catch(async (err: Error) => {
      const code = await Promise.race([impostor.exited, Bun.sleep(0).then(() => "running")]);
      const said = ["out", "err"].map((f) => readIfThere(join(w.scratch, `impostor-${f}.txt`)).trim()).filter(Boolean);
      throw new Error(`${err.message} (pipe-peer listen exit ${code}${said.length ? `: ${said.join(" | ")}` : ""})`);
    });
    const secret = "hunter2-typed-secret";
    const typed = await bsk(w, bin, ["type", secret, "--session", "s-1", "--json"], { BSK_AUTO_START: "0" });
    const error = json("type to the impostor", typed).error;
    expectThat(
      "impostor",
      typed.code !== 0 && error?.code === "permission_denied" && error.data?.reason === "unproven_daemon",
      "permission_denied (unproven_daemon)",
      typed,
    );
    const got = readFileSync(log, "utf8");
    const keys = got
      .trim()
      .split("\n")
      .map((l) => Object.keys(JSON.parse(l)).sort().join(","));
    expectThat("impostor", !got.includes(secret) && keys.length === 1 && keys[0] === "link,nonce,v", "only the hello", got);
    step(`an impostor listening on ${pipe}: bsk.exe type refused it (unproven_daemon); it received only the hello ${got.trim()}`);
  } finally {
    impostor.kill("SIGKILL");
    await impostor.exited;
  }
}

/** Chrome's framing: a 4-byte little-endian length, then the JSON. */
function nativeFrame(value: unknown): Uint8Array {
  const body = new TextEncoder().encode(JSON.stringify(value));
  const frame = new Uint8Array(4 + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, true);
  frame.set(body, 4);
  return frame;
}

/** native install writes the four keys, each naming the manifest whose launcher runs bsk.exe; uninstall removes them. */
async function proveRegistry(w: Wine, bin: string, homeDir: string, step: (line: string) => void): Promise<void> {
  const installed = await ok(w, bin, "native install", ["native", "install"]);
  const states = (installed.registrations as { state: string }[]).map((r) => r.state);
  expectThat("native install", states.length === HOST_KEYS.length && states.every((s) => s === "written"), "4 keys written", installed);
  const manifests = HOST_KEYS.map((key) => regValue(w, key));
  const manifest = manifests[0];
  expectThat("native install", !!manifest && manifests.every((m) => m === manifest), "every key naming one manifest", manifests);
  const text = JSON.parse(readFileSync(linuxPath(w.prefix, manifest!), "utf8"));
  expectThat(
    "native install",
    text.name === "com.bsk.bridge" && text.path === installed.launcher,
    `a manifest naming ${installed.launcher}`,
    text,
  );

  // What Chrome does with the registration: run the manifest's launcher with the caller's origin, talk on stdio.
  const origin = "chrome-extension://mmgjjcpeaknlocpgodfmbngemnnhomck/";
  const host = Bun.spawn([w.wine, "cmd", "/c", text.path, origin], {
    env: w.env,
    stdin: nativeFrame({ type: "ping" }),
    stdout: "pipe",
    stderr: Bun.file(join(w.scratch, "native-host.txt")),
  });
  const limit = setTimeout(() => host.kill("SIGKILL"), STEP_LIMIT_MS);
  const answer = new Uint8Array(await new Response(host.stdout).arrayBuffer());
  await host.exited;
  clearTimeout(limit);
  const reply = answer.length > 4 ? JSON.parse(new TextDecoder().decode(answer.subarray(4))) : undefined;
  expectThat("native host", reply?.ok === true && typeof reply.version === "string", "a framed {ok, version}", reply);
  step(
    `native install: ${HOST_KEYS.length} HKCU NativeMessagingHosts keys (Chrome, Chromium, Edge, Brave) → ${manifest}; its host (bsk.exe through the launcher) answers a ping`,
  );

  const removed = await ok(w, bin, "native uninstall", ["native", "uninstall"]);
  expectThat("native uninstall", removed.removed?.length === HOST_KEYS.length, "4 keys removed", removed);
  const left = HOST_KEYS.filter((key) => regValue(w, key) !== undefined);
  expectThat("native uninstall", left.length === 0, "no key left", left);
  expectThat(
    "native uninstall",
    readdirSync(join(homeDir, "native")).length === 0,
    "the manifest and the launcher removed",
    readdirSync(join(homeDir, "native")),
  );
  step("native uninstall: the 4 registry keys, the manifest and the launcher removed");
}

export async function prove(ctx: LaneContext): Promise<string[]> {
  const { bin, log } = ctx;
  if (!existsSync(bin)) throw new Error(`${bin} does not exist (build it: bun build --compile --target=bun-windows-x64)`);
  const w = setupWine(ctx.root, log);
  const proven: string[] = [];
  const step = (line: string) => {
    proven.push(line);
    log(line);
  };
  endWine(w);
  // One wineserver for the whole lane. Without -p it exits a few seconds after the prefix's last process, and a
  // step whose Wine process starts while it is going down dies before running a line (seen in CI: the impostor
  // "ended first" right after the daemon stopped, the prefix's last process).
  Bun.spawnSync([w.wineserver, "-p"], { env: w.env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  for (const home of homesInPrefix(w.prefix)) removeTree(home);
  for (const key of HOST_KEYS) Bun.spawnSync([w.wine, "reg", "delete", key, "/f"], { env: w.env, stdout: "ignore", stderr: "ignore" });
  // Built while the steps before the update run; awaited (settled) before the scratch folder goes.
  const updateBuild = buildUpdateBinaries(w.scratch);
  updateBuild.catch(() => undefined);
  try {
    const peer = await buildPipePeer(ctx.root, w.scratch);
    const version = await bsk(w, bin, ["version"]);
    expectThat("version", version.code === 0 && /^bsk \d+\.\d+\.\d+/.test(version.stdout), "bsk <version>", version);
    step(`version: ${version.stdout.trim()}`);

    // Started the way an agent's harness does: its output read to EOF through a pipe. The daemon must hold none
    // of it, so this returns while the daemon still runs (checked next, over the pipe). (stderr: see bsk().)
    const started = await ok(w, bin, "daemon start", ["daemon", "start"]);
    const pipe = String(started.socket);
    expectThat("daemon start", /^\\\\\.\\pipe\\bsk-[0-9a-f]{16}$/.test(pipe), "a named pipe \\\\.\\pipe\\bsk-<hash>", started);
    const home = String(started.log).replace(/\\logs\\daemon\.log$/, "");
    expectThat(
      "daemon start",
      /^C:\\users\\[^\\/]+\\AppData\\Local\\bsk$/.test(home),
      "the home %LOCALAPPDATA%\\bsk, backslashes only",
      home,
    );
    const homeDir = linuxPath(w.prefix, home);

    const status = await ok(w, bin, "daemon status", ["daemon", "status"]);
    expectThat(
      "daemon status",
      status.daemon?.socket === pipe && status.daemon?.pid === started.pid,
      `pid ${started.pid} on ${pipe}`,
      status,
    );
    expectThat("daemon status", status.daemon?.home === home, `home ${home}`, status.daemon);
    step(`daemon on named pipe ${pipe} (pid ${started.pid}), home ${home}; status round trip over the pipe`);
    step("bsk daemon start's stdout read through a pipe to EOF while the daemon runs: the detached daemon holds none of it");

    // A second daemon of the same home finds the lock's pid alive (process.kill(pid, 0)) and the first answering.
    const second = await ok(w, bin, "second daemon", ["daemon", "start", "--foreground"]);
    expectThat(
      "second daemon",
      second.already_running === true && second.pid === started.pid,
      `already running (pid ${started.pid})`,
      second,
    );
    step(`a second daemon of the home defers to the first: lock pid ${started.pid} alive, answering on the pipe`);
    await proveKeylessClient(w, bin, peer, pipe, started.pid, step);

    const stopped = await ok(w, bin, "daemon stop", ["daemon", "stop"]);
    expectThat("daemon stop", stopped.stopped === true && stopped.killed === false, "stopped over the pipe, not killed", stopped);
    const after = await bsk(w, bin, ["daemon", "status", "--json"]);
    expectThat(
      "status after stop",
      after.code !== 0 && json("status after stop", after).error?.data?.reason === "daemon_not_running",
      "daemon_not_running",
      after,
    );
    for (const file of ["daemon.json", "daemon.lock"])
      expectThat("daemon stop", !existsSync(join(homeDir, file)), `${file} removed`, readdirSync(homeDir));
    const logText = readFileSync(join(homeDir, "logs/daemon.log"), "utf8");
    expectThat(
      "daemon stop",
      logText.includes('"reason":"system.shutdown"'),
      "the daemon log to say it stopped on system.shutdown",
      logText.slice(-400),
    );
    step(`daemon stop over the pipe (system.shutdown, no signal): pid ${started.pid} gone, lock and daemon.json removed`);
    await proveImpostor(w, bin, peer, pipe, step);

    await proveRegistry(w, bin, homeDir, step);
    await proveSession(w, ctx.root, bin, step);
    await proveUpdate(w, updateBuild, step);
    return proven;
  } finally {
    await updateBuild.catch(() => undefined);
    endWine(w);
    removeTree(w.scratch);
  }
}

if (import.meta.main) {
  const root = join(import.meta.dir, "../..");
  let bin = process.argv[2];
  if (!bin) {
    const { buildBinary } = await import("../build.ts");
    bin = join(root, "dist/windows-x64/bsk.exe");
    mkdirSync(join(root, "dist/windows-x64"), { recursive: true });
    const t0 = performance.now();
    await buildBinary("bun-windows-x64", bin);
    console.log(`built ${bin} in ${Math.round(performance.now() - t0)} ms`);
  }
  const t0 = performance.now();
  try {
    const proven = await prove({ root, bin, log: (line) => console.log(`  ${line}`) });
    console.log(`windows-x64: ${proven.length} proven under Wine in ${Math.round((performance.now() - t0) / 1000)} s`);
  } catch (err) {
    console.error(`windows-x64: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
