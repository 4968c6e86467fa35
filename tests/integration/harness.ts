/**
 * A daemon per test: its own short $BSK_HOME under /tmp, a free port, short timers. In-process
 * (runDaemon) by default; as a `bun daemon/main.ts` subprocess where a test kills or restarts it.
 */
import type { DiskSync } from "../../daemon/ledger.ts";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { homePaths, type DaemonInfo, type HomePaths } from "../../shared/home.ts";
import { runDaemon, type RunOutcome } from "../../daemon/main.ts";
import { ensureSecret } from "../../daemon/trust/secret.ts";
import { IpcClient } from "./ipc-client.ts";
import { Peer, type PeerOptions } from "./peer.ts";
import { tempDir } from "../temp.ts";

export const ROOT = join(import.meta.dir, "../..");

/** Every timer short, but long enough never to fire in a test that does not wait for it. */
export const TEST_ENV: Record<string, string> = {
  BSK_HANDSHAKE_MS: "3000",
  BSK_HEARTBEAT_MS: "1000",
  BSK_BROWSER_SILENCE_MS: "20000",
  BSK_RECONNECT_GRACE_MS: "3000",
  BSK_BROWSER_WAIT_MS: "3000",
  BSK_READOPT_WAIT_MS: "10000",
  BSK_OWNER_POLL_MS: "20",
  BSK_SESSION_IDLE_MS: "60000",
  BSK_DAEMON_IDLE_MS: "60000",
  // In-process daemons share the test runner's HOME: never register native hosts with the real browsers.
  BSK_NATIVE_HOST: "off",
};

/** Peak resident memory of a process, in bytes (Linux's VmHWM). */
export function peakRss(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;
}

export { freePort } from "../ports.ts";

export function tempHome(): string {
  return tempDir("bsk-it-");
}

export interface TestDaemon {
  home: string;
  port: number;
  paths: HomePaths;
  info: DaemonInfo;
  /** This home's install secret ($BSK_HOME/trust.key), for peers that prove it. */
  secret: Uint8Array;
  /** Resolves when the daemon stops (in-process: its RunOutcome; subprocess: its exit code). */
  done: Promise<RunOutcome | number>;
  client(): Promise<IpcClient>;
  peer(opts?: Omit<PeerOptions, "port">): Promise<Peer>;
  /** Shut down over IPC and wait until it has stopped. */
  stop(): Promise<void>;
  /** Subprocess only. */
  proc?: ReturnType<typeof Bun.spawn>;
}

export interface StartOptions {
  env?: Record<string, string>;
  home?: string;
  port?: number;
  subprocess?: boolean;
  /** In-process only: the ledger's disk sync (fault injection, tests/integration/sync-gate.ts). */
  ledgerSync?: DiskSync;
  /** In-process only: called in the daemon's own ready callback, before anything it scheduled for later runs. */
  onReady?: (info: DaemonInfo) => void;
  /** In-process only: called once the daemon listens, before its warm-up and ready. */
  onListening?: () => void;
}

export async function startDaemon(opts: StartOptions = {}): Promise<TestDaemon> {
  const home = opts.home ?? tempHome();
  // Unless a test pins one, the kernel picks the port (read back from the daemon's ready info).
  const port = opts.port ?? 0;
  const env = { ...TEST_ENV, ...opts.env };
  const paths = homePaths(home, { ...process.env, ...env });
  const clients: IpcClient[] = [];
  const peers: Peer[] = [];

  let info: DaemonInfo;
  let done: Promise<RunOutcome | number>;
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  try {
    if (opts.subprocess) {
      proc = Bun.spawn([process.execPath, join(ROOT, "daemon/main.ts")], {
        cwd: ROOT,
        env: { ...process.env, ...env, BSK_HOME: home, BSK_PORT: String(port) },
        stdout: "pipe",
        stderr: "inherit",
      });
      const line = await firstLine(proc.stdout as ReadableStream<Uint8Array>);
      const ready = JSON.parse(line);
      if (!ready.ready) throw new Error(`daemon did not start: ${line}`);
      info = ready;
      done = proc.exited;
    } else {
      const { promise, resolve } = Promise.withResolvers<DaemonInfo>();
      const onReady = (ready: DaemonInfo) => {
        opts.onReady?.(ready);
        resolve(ready);
      };
      const run = runDaemon({
        home,
        port,
        env,
        onReady,
        ...(opts.onListening && { onListening: opts.onListening }),
        ...(opts.ledgerSync && { ledgerSync: opts.ledgerSync }),
      });
      done = run;
      const first = await Promise.race([promise, run]);
      if ("kind" in first) throw new Error(`daemon did not start: ${JSON.stringify(first)}`);
      info = first;
    }
  } catch (e) {
    // No test gets this daemon to stop: a subprocess that did not start is ended here, and a home made here goes.
    proc?.kill("SIGKILL");
    await proc?.exited;
    if (!opts.home) removeHome(home);
    throw e;
  }

  const secret = ensureSecret(paths.secret, home).bytes;
  return {
    home,
    port: info.ws_port,
    paths,
    info,
    secret,
    done,
    proc,
    async client() {
      const c = await IpcClient.connect(paths);
      clients.push(c);
      return c;
    },
    async peer(p = {}) {
      const peer = await Peer.start({ secret, ...p, port: info.ws_port });
      peers.push(peer);
      return peer;
    },
    async stop() {
      for (const p of peers) p.close();
      try {
        const c = await IpcClient.connect(paths);
        c.send({ id: "stop", method: "system.shutdown" });
      } catch {
        proc?.kill("SIGTERM");
      }
      await done;
      for (const c of clients) c.close();
    },
  };
}

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    const nl = buf.indexOf("\n");
    if (nl >= 0) {
      reader.releaseLock();
      return buf.slice(0, nl);
    }
  }
  return buf;
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

/** Run `fn` against a fresh daemon, then stop it and remove its home. */
export async function withDaemon<T>(opts: StartOptions, fn: (d: TestDaemon) => Promise<T>): Promise<T> {
  const d = await startDaemon(opts);
  try {
    return await fn(d);
  } finally {
    await d.stop();
    removeHome(d.home);
  }
}

export interface SessionWorld {
  d: TestDaemon;
  peer: Peer;
  c: IpcClient;
  /** The session started on `peer`. */
  s: string;
}

/** A fresh daemon with one browser, one client and one session started with `params`. */
export function withSession<T>(opts: StartOptions & { params?: Record<string, unknown> }, fn: (w: SessionWorld) => Promise<T>): Promise<T> {
  return withDaemon(opts, async (d) => {
    const peer = await d.peer();
    const c = await d.client();
    const s = await startSession(c, opts.params);
    return fn({ d, peer, c, s });
  });
}

/** Start a session on the peer's browser; returns its id. */
export async function startSession(client: IpcClient, params: Record<string, unknown> = {}): Promise<string> {
  const r = await client.call("session.start", { focus: false, ...params });
  return r.session_id as string;
}
