/**
 * Starting the daemon on demand, fully detached: its own session (setsid), stdio appended to
 * $BSK_HOME/logs/daemon.log and never the caller's pipes, unref'd, so a harness reading our output to EOF
 * is never held. CLIs racing to start it spawn one daemon: the first takes daemon.starting, the others wait for
 * that daemon's answer. (Were each to spawn its own, a loser still loading when the winner is stopped would take
 * the free lock and come back as a daemon nobody asked for.) The daemon's own lock still guards against the rest.
 * node:fs is imported inside functions: a static import would be hoisted into the CLI's start-up by the bundler.
 */
import type { FSWatcher } from "node:fs";
import type { HomePaths } from "../shared/home.ts";
import { isCompiled } from "../shared/compiled.ts";
import { BskError, hintFor, isErrorCode, type ErrorBody } from "../protocol/errors.ts";
import { tryConnect, type Connection } from "./daemon-client.ts";

type Env = Record<string, string | undefined>;

export const START_WAIT_MS = 5_000;

/** argv that runs this same bsk as `daemon start --foreground`. */
export function daemonArgv(opts: { compiled?: boolean; execPath?: string; entry?: string; extra?: string[] } = {}): string[] {
  const compiled = opts.compiled ?? isCompiled();
  const entry = opts.entry ?? `${import.meta.dir}/main.ts`;
  return [opts.execPath ?? process.execPath, ...(compiled ? [] : [entry]), "daemon", "start", "--foreground", ...(opts.extra ?? [])];
}

/**
 * The environment a background daemon is started with: the caller's, its home, and JavaScriptCore's JIT compilers
 * off unless BSK_DAEMON_JIT=1 (or the caller set BUN_JSC_useJIT itself). The daemon's own JavaScript is a thin
 * layer between sockets (JSON, hashing and file writes are native either way): interpreted it costs ~0.4 ms of CPU
 * a call more and no measurable time on a CLI call, while compiled code and the compilers' own pages grew a daemon's
 * RSS by ~14 MB over its first 4,000 calls and ~25 MB over 30,000, against ~2 MB interpreted (docs/development.md,
 * the soak). A daemon runs all day in the person's machine: it stays small.
 */
export function daemonEnv(env: Env, home: string): Env {
  const jit = env.BSK_DAEMON_JIT === "1" || env.BUN_JSC_useJIT !== undefined;
  return { ...env, BSK_HOME: home, ...(!jit && { BUN_JSC_useJIT: "0" }) };
}

export async function ensureHome(paths: HomePaths): Promise<void> {
  const { mkdirSync } = await import("node:fs");
  mkdirSync(paths.home, { recursive: true, mode: 0o700 });
  mkdirSync(paths.logsDir, { recursive: true, mode: 0o700 });
}

export interface Spawned {
  pid: number;
  /** Resolves with the exit code if the child exits (e.g. it lost the race to another daemon). */
  exited: Promise<number>;
}

/**
 * Spawn `argv` in its own session with stdio on the log file; the caller's stdio is never shared. It runs in `cwd`
 * (bsk's home), never in the directory the caller happened to be in: a long-lived daemon would keep that busy.
 */
export async function spawnDetached(argv: string[], logPath: string, env: Env, cwd: string): Promise<Spawned> {
  const { closeSync, openSync } = await import("node:fs");
  const fd = openSync(logPath, "a", 0o600);
  try {
    let onExit: (code: number) => void = () => {};
    const exited = new Promise<number>((r) => (onExit = r));
    const child = Bun.spawn(argv, {
      cwd,
      detached: true,
      stdin: "ignore",
      stdout: fd,
      stderr: fd,
      env: env as Record<string, string>,
      onExit: (_p, code) => onExit(code ?? 1),
    });
    child.unref();
    return { pid: child.pid, exited };
  } finally {
    closeSync(fd);
  }
}

/**
 * Wait until the daemon answers on its socket. Wakes on changes in $BSK_HOME and its run dir
 * (daemon.json written, socket created), with a short poll as the fallback.
 */
export async function waitForDaemon(paths: HomePaths, opts: { ms?: number; child?: Spawned } = {}): Promise<Connection> {
  const { watch } = await import("node:fs");
  const deadline = performance.now() + (opts.ms ?? START_WAIT_MS);
  let wake: () => void = () => {};
  const watchers: FSWatcher[] = [];
  for (const dir of new Set([paths.home, paths.runDir])) {
    try {
      watchers.push(watch(dir, () => wake()));
    } catch {
      // The run dir may not exist yet; the poll covers it.
    }
  }
  let childCode: number | undefined;
  opts.child?.exited.then((code) => {
    childCode = code;
    wake();
  });
  try {
    for (let delay = 5; ; delay = Math.min(delay * 2, 50)) {
      const conn = await tryConnect(paths);
      if (conn) return conn;
      // A spawn that failed (not one that found a daemon already running, which exits 0) ends the wait.
      if (childCode !== undefined && childCode !== 0) {
        const { readStartError } = await import("../shared/start-error.ts");
        throw startFailed(paths, `the daemon exited with code ${childCode}`, readStartError(paths, opts.child!.pid));
      }
      const left = deadline - performance.now();
      if (left <= 0) throw startFailed(paths, `it did not answer within ${Math.round((opts.ms ?? START_WAIT_MS) / 1000)} s`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(delay, left));
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  } finally {
    for (const w of watchers) w.close();
  }
}

/** The daemon's own error (daemon.start-error.json) when it left one: its code, message and hint, then the log. */
export function startFailed(paths: HomePaths, why: string, daemonError?: ErrorBody): BskError {
  if (daemonError) {
    const code = isErrorCode(daemonError.code) ? daemonError.code : "unsupported";
    return new BskError(code, `could not start the bsk daemon: ${daemonError.message}`, {
      hint: `${daemonError.hint ?? hintFor(code, daemonError.data?.reason)} (More in ${paths.log}.)`,
      data: { reason: "daemon_start_failed", daemon_error: daemonError },
    });
  }
  return new BskError("unsupported", `could not start the bsk daemon: ${why}`, {
    hint: `See ${paths.log} (bsk logs), or run bsk daemon start --foreground to watch it start.`,
    data: { reason: "daemon_start_failed" },
  });
}

/**
 * Start a detached daemon for this $BSK_HOME and return a connection to whichever daemon serves it.
 * Background daemons keep bsk up to date (--auto-update); one a person runs in a terminal does not.
 */
export async function startDaemon(paths: HomePaths, env: Env, extra: string[] = []): Promise<Connection> {
  await ensureHome(paths);
  const release = await takeStarting(paths);
  if (!release) return waitForDaemon(paths, { ms: START_WAIT_MS * 2 });
  try {
    const argv = daemonArgv({ extra: ["--auto-update", ...extra] });
    const child = await spawnDetached(argv, paths.log, daemonEnv(env, paths.home), paths.home);
    return await waitForDaemon(paths, { child });
  } finally {
    release();
  }
}

/**
 * daemon.starting, created exclusively with our pid: returns how to let it go, or null when another live CLI
 * holds it (it is starting the daemon). A holder that is gone, or held it longer than any start takes, is stale.
 */
export async function takeStarting(paths: HomePaths): Promise<(() => void) | null> {
  const { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } = await import("node:fs");
  const { pidAlive } = await import("../shared/pid.ts");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(paths.starting, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (Number(readFileSync(paths.starting, "utf8").trim()) === process.pid) unlinkSync(paths.starting);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let holder = 0;
    let age = 0;
    try {
      holder = Number(readFileSync(paths.starting, "utf8").trim());
      age = Date.now() - statSync(paths.starting).mtimeMs;
    } catch {
      continue;
    }
    // An empty file is a CLI between its open and its write.
    const live = holder ? pidAlive(holder) : age < 2000;
    if (live && age < START_WAIT_MS * 2) return null;
    try {
      unlinkSync(paths.starting);
    } catch {
      /* another CLI cleared it first */
    }
  }
  return null;
}
