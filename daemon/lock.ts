/**
 * One daemon per $BSK_HOME: daemon.lock is created with O_EXCL and holds the owner's pid.
 * A lock whose pid is gone (or was reused by another process since) is taken over by renaming it
 * aside first, so two starters racing for a stale lock cannot both win.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { BskError } from "../protocol/errors.ts";
import { readDaemonJson } from "./daemon-json.ts";
import type { DaemonInfo, HomePaths } from "../shared/home.ts";
import { readLinkKey } from "../shared/link-key.ts";
import { answerDaemon, clientHello, unixTransport } from "../shared/link-proof.ts";
import { pidAlive, processStartMs } from "../shared/pid.ts";

export type LockResult = { kind: "acquired"; release(): void } | { kind: "held"; info: DaemonInfo };

/** How long a live lock holder may take to start answering on its socket. */
const ANSWER_WAIT_MS = 3000;

export async function acquireLock(paths: HomePaths, answerWaitMs = ANSWER_WAIT_MS): Promise<LockResult> {
  const me = process.pid;
  for (let attempt = 0; attempt < 50; attempt++) {
    if (tryCreate(paths.lock, me)) return { kind: "acquired", release: () => releaseLock(paths.lock, me) };

    const holder = readLock(paths.lock);
    if (holder === "missing") continue;
    if (holder === "empty") {
      // Another starter is between open() and write(); give it a moment unless the file is old.
      if (ageMs(paths.lock) < 2000) {
        await Bun.sleep(20);
        continue;
      }
    } else if (pidAlive(holder) && !pidReused(holder, paths.lock)) {
      const info = await waitForAnswer(paths, holder, answerWaitMs);
      if (info) return { kind: "held", info };
      if (pidAlive(holder)) {
        throw new BskError("unsupported", `daemon pid ${holder} holds ${paths.lock} but does not answer on its socket`, {
          hint: `Stop that process (kill ${holder}) and start the daemon again.`,
          data: { pid: holder },
        });
      }
    }
    takeOver(paths.lock, holder);
  }
  throw new BskError("unsupported", `could not take ${paths.lock}: other daemons keep racing for it`, {
    hint: "Stop the other bsk daemons of this home and retry.",
  });
}

function tryCreate(lock: string, pid: number): boolean {
  let fd: number;
  try {
    fd = openSync(lock, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, `${pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readLock(lock: string): number | "missing" | "empty" {
  let text: string;
  try {
    text = readFileSync(lock, "utf8").trim();
  } catch {
    return "missing";
  }
  const pid = Number(text);
  return text && Number.isInteger(pid) ? pid : "empty";
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** The pid was given to another process after the lock was written (e.g. after a reboot). */
function pidReused(pid: number, lock: string): boolean {
  const started = processStartMs(pid);
  if (started === undefined) return false;
  try {
    return started > statSync(lock).mtimeMs + 1000;
  } catch {
    return false;
  }
}

async function waitForAnswer(paths: HomePaths, pid: number, waitMs: number): Promise<DaemonInfo | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const info = readDaemonJson(paths);
    if (info?.pid === pid && (await probeSocket(info.socket, paths.linkKey, Math.max(100, deadline - Date.now())))) return info;
    if (Date.now() >= deadline || !pidAlive(pid)) return undefined;
    await Bun.sleep(50);
  }
}

/** Does a daemon of this home's link key answer a `system.status` request on this socket (after the link proof)? */
export async function probeSocket(socketPath: string, linkKeyPath: string, timeoutMs = 1000): Promise<boolean> {
  const { promise, resolve } = Promise.withResolvers<boolean>();
  const timer = setTimeout(() => resolve(false), timeoutMs);
  let sock: Awaited<ReturnType<typeof Bun.connect>> | undefined;
  let buf = "";
  let proven = false;
  try {
    const key = readLinkKey(linkKeyPath);
    const hello = clientHello();
    const transport = unixTransport(socketPath);
    sock = await Bun.connect({
      unix: socketPath,
      socket: {
        data(s, chunk) {
          buf += chunk.toString();
          const nl = buf.indexOf("\n");
          if (nl === -1) return;
          if (proven) return resolve(buf.includes('"id":"probe"'));
          const answer = answerDaemon(key, transport, hello, buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          if (!answer.ok) return resolve(false);
          proven = true;
          s.write(`${answer.line}${JSON.stringify({ id: "probe", method: "system.status", params: {} })}\n`);
        },
        close() {
          resolve(false);
        },
        error() {
          resolve(false);
        },
      },
    });
    sock.write(hello.line);
  } catch {
    resolve(false);
  }
  const ok = await promise;
  clearTimeout(timer);
  sock?.end();
  return ok;
}

function takeOver(lock: string, stalePid: number | "empty"): void {
  const aside = `${lock}.stale.${process.pid}`;
  try {
    renameSync(lock, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  // Between our read and the rename another starter may have replaced the stale lock with its own:
  // if what we moved is not what we judged stale, put it back.
  if (readLock(aside) !== stalePid) {
    try {
      linkSync(aside, lock);
    } catch {}
  }
  try {
    unlinkSync(aside);
  } catch {}
}

function releaseLock(lock: string, pid: number): void {
  if (readLock(lock) === pid) {
    try {
      unlinkSync(lock);
    } catch {}
  }
}
