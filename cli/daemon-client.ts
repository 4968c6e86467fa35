/**
 * Talking to the daemon: find its socket (daemon.json, else the conventional path) or, when a sandbox hides or blocks
 * the socket, its loopback TCP port (daemon.json's cli_port); open one connection per invocation with Bun.connect;
 * prove the link key both ways (shared/link-proof.ts) before anything else; send one request line, read lines until
 * the reply with our id. Ctrl-C sends `cancel` on the same connection and waits briefly for the daemon to confirm.
 */
import { cliTransport, type DaemonInfo, type HomePaths } from "../shared/home.ts";
import { BskError, type ErrorBody } from "../protocol/errors.ts";
import { readJsonFile } from "../shared/read-json.ts";
import {
  answerDaemon,
  clientHello,
  LINK_HELLO_MAX_BYTES,
  LINK_PROOF_MS,
  tcpTransport,
  unansweredProof,
  unixTransport,
  unprovenDaemon,
} from "../shared/link-proof.ts";

export interface Connection {
  write(line: string): void;
  /** Called for each complete line received. */
  onLine: (line: string) => void;
  /** Called once when the daemon closes the connection (or it breaks). */
  onClose: () => void;
  /** While set, a line longer than this ends the connection (onClose): a peer yet to prove itself sends no more. */
  lineCap?: number;
  /**
   * How long reaching the daemon took beyond a connect (starting one: reach-daemon.ts). The next call's timeout counts
   * it, so `--timeout` holds by the CLI's own clock; counted once.
   */
  spentMs?: number;
  close(): void;
}

/** daemon.json, read synchronously (shared/read-json.ts): no daemon's home pays no asynchronous file read. */
export async function readDaemonInfo(paths: HomePaths): Promise<DaemonInfo | null> {
  const info = readJsonFile(paths.daemonJson) as DaemonInfo | undefined;
  return info && typeof info === "object" ? info : null;
}

/**
 * Connect to the running daemon, or null. The socket's place follows from $BSK_HOME (homePaths, shared with
 * the daemon), so that is tried first; daemon.json is read (~0.5 ms) only when it does not answer. A socket that is
 * missing or that this process may not reach (ENOENT, EACCES, EPERM: a sandbox) sends it to daemon.json's loopback
 * TCP port (BSK_TRANSPORT=auto, the default); BSK_TRANSPORT=unix never tries TCP, =tcp only TCP.
 * A socket, or socket folder, that is not this user's alone is refused before anything is sent (a BskError,
 * reason untrusted_socket): another local user could be listening there. A listener that does not prove this home's
 * link key is refused after the hello (reason unproven_daemon): it got a random nonce and nothing else. Before the TCP
 * port, the home it came from must be this user's alone (reason untrusted_home, shared/home-check.ts); `windowsHome`:
 * the Windows home read from WSL, whose owners WSL does not show (Windows' own access rules guard it).
 */
export async function tryConnect(
  paths: HomePaths,
  env: Record<string, string | undefined> = process.env,
  opts: { windowsHome?: boolean } = {},
): Promise<Connection | null> {
  // Loaded here, not at start-up: commands that never reach the daemon (version, help) do not pay for node:fs.
  const { checkSocket } = await import("../shared/socket-check.ts");
  const mode = cliTransport(env);
  const unix = async (path: string): Promise<Connection | "absent" | "stale"> => {
    if (!checkSocket(path)) return "absent";
    try {
      return await connectUnix(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === "ENOENT" || code === "EACCES" || code === "EPERM" ? "absent" : "stale";
    }
  };
  let reached: Connection | "absent" | "stale" = "absent";
  if (mode !== "tcp") {
    reached = await unix(paths.socket);
    if (typeof reached === "object") return proveLink(reached, paths, unixTransport(paths.socket));
  }
  const info = await readDaemonInfo(paths);
  if (mode !== "tcp") {
    const listed = typeof info?.socket === "string" && info.socket ? info.socket : paths.socket;
    if (listed !== paths.socket) reached = await unix(listed);
    if (typeof reached === "object") return proveLink(reached, paths, unixTransport(listed));
    // A socket nothing listens on (the daemon is gone), or the socket only: not running.
    if (reached === "stale" || mode === "unix") return null;
  }
  const port = info?.cli_port;
  if (typeof port !== "number") return null;
  // The port and the key came from the home: it must be this user's alone (no socket folder vouches for it here).
  if (!opts.windowsHome) (await import("../shared/home-check.ts")).checkHomeForTcp(paths);
  const conn = await connectTcp(port).catch(() => null);
  return conn && proveLink(conn, paths, tcpTransport(port));
}

/** The daemon serving this home's link key, proven both ways on `conn`; else conn is closed and a BskError thrown. */
async function proveLink(conn: Connection, paths: HomePaths, transport: string): Promise<Connection> {
  let key: Uint8Array;
  const { readLinkKey, forgetLinkKey } = await import("../shared/link-key.ts");
  try {
    key = readLinkKey(paths.linkKey);
  } catch (err) {
    conn.close();
    throw err;
  }
  const hello = clientHello();
  const { promise, resolve, reject } = Promise.withResolvers<Connection>();
  const timer = setTimeout(() => fail(unansweredProof(transport)), LINK_PROOF_MS);
  const fail = (why: string | BskError) => {
    clearTimeout(timer);
    conn.onLine = () => {};
    conn.onClose = () => {};
    conn.close();
    reject(typeof why === "string" ? unprovenDaemon(transport, why) : why);
  };
  conn.lineCap = LINK_HELLO_MAX_BYTES;
  conn.onClose = () => fail("it closed the connection before proving itself");
  conn.onLine = (line) => {
    const answer = answerDaemon(key, transport, hello, line);
    if (!answer.ok) {
      forgetLinkKey();
      return fail(answer.why);
    }
    clearTimeout(timer);
    conn.lineCap = undefined;
    conn.onLine = () => {};
    conn.onClose = () => {};
    // Our proof goes out now, and the caller's first request right behind it: no second round trip.
    conn.write(answer.line);
    resolve(conn);
  };
  conn.write(hello.line);
  return promise;
}

/** Open a JSONL connection on a Unix socket; rejects when nothing listens there. */
export function connectUnix(path: string): Promise<Connection> {
  return connectJsonl({ unix: path });
}

/** Open a JSONL connection to the daemon's loopback TCP port; rejects when nothing listens there. */
export function connectTcp(port: number): Promise<Connection> {
  return connectJsonl({ hostname: "127.0.0.1", port });
}

async function connectJsonl(to: { unix: string } | { hostname: string; port: number }): Promise<Connection> {
  const decoder = new TextDecoder();
  let buffered = "";
  /** Bytes not yet taken by the socket (a large request may be written in parts). */
  let pending = new Uint8Array(0);
  let closed = false;
  const conn: Connection = {
    write(line) {
      const bytes = new TextEncoder().encode(line);
      if (pending.length) {
        const joined = new Uint8Array(pending.length + bytes.length);
        joined.set(pending);
        joined.set(bytes, pending.length);
        pending = joined;
      } else pending = bytes;
      flush();
    },
    onLine: () => {},
    onClose: () => {},
    close() {
      closed = true;
      socket.end();
    },
  };
  const finish = () => {
    if (closed) return;
    closed = true;
    conn.onClose();
  };
  const flush = () => {
    if (!pending.length) return;
    const n = socket.write(pending);
    if (n > 0) pending = pending.subarray(n);
  };
  const handlers: import("bun").SocketHandler = {
    data(_s, chunk) {
      const text = decoder.decode(chunk, { stream: true });
      const scanFrom = buffered.length;
      buffered += text;
      // Most chunks of a large reply hold no newline: skip rescanning what was already searched.
      let nl = text.includes("\n") ? buffered.indexOf("\n", scanFrom) : -1;
      while (nl !== -1) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.trim()) conn.onLine(line);
        nl = buffered.indexOf("\n");
      }
      if (conn.lineCap !== undefined && buffered.length > conn.lineCap) finish();
    },
    drain: () => flush(),
    close: finish,
    end: finish,
    error: finish,
  };
  const socket = await ("unix" in to ? Bun.connect({ ...to, socket: handlers }) : Bun.connect({ ...to, socket: handlers }));
  return conn;
}

export interface RequestFrameOut {
  id: string;
  method: string;
  params: Record<string, unknown>;
  meta: Record<string, unknown>;
}

export interface ReplyMeta {
  trace_id?: string;
  timings?: Record<string, number>;
  /** A mutation's effect: committed, none or unknown. */
  effect_state?: string;
  /** Answered from the ledger's record of an earlier call with the same op id. */
  replayed?: boolean;
}

export type Reply =
  | { ok: true; result: unknown; meta?: ReplyMeta; interrupted: boolean }
  | { ok: false; error: BskError; meta?: ReplyMeta; interrupted: boolean };

/** A frame a streaming call (events --follow) sends ahead of its reply. */
export interface StreamedEvent {
  event: string;
  payload: unknown;
}

export interface CallOptions {
  /** Give up (timeout) when nothing came back by then. */
  giveUpMs: number;
  /** Send `cancel` on Ctrl-C (the first one); a second Ctrl-C gives up at once. */
  cancelOnInterrupt?: boolean;
  /** How long to wait for the original reply after sending cancel. */
  cancelWaitMs?: number;
  /** Hint for a dropped connection (e.g. naming the op id to retry with). */
  dropHint?: string;
  /** Event frames sent before the reply (a streaming call); without this they are ignored. */
  onEvent?: (frame: StreamedEvent) => void;
}

/** Send one request and wait for its reply. Never rejects: failures come back as BskError replies. */
export function call(conn: Connection, given: RequestFrameOut, givenOpts: CallOptions): Promise<Reply> {
  const spent = conn.spentMs ?? 0;
  conn.spentMs = undefined;
  const timeoutMs = given.meta.timeout_ms;
  if (spent > 0 && typeof timeoutMs === "number") {
    const left = Math.round(timeoutMs - spent);
    if (left <= 0) return Promise.resolve({ ok: false, interrupted: false, error: startAteTimeout(given.method, timeoutMs, spent) });
    return callAs(conn, { ...given, meta: { ...given.meta, timeout_ms: left } }, { ...givenOpts, giveUpMs: givenOpts.giveUpMs - spent });
  }
  return callAs(conn, given, givenOpts);
}

function startAteTimeout(method: string, timeoutMs: number, spent: number): BskError {
  return new BskError("timeout", `${method} did not start within ${timeoutMs} ms: starting the daemon took ${Math.round(spent)} ms`, {
    hint: "Nothing was sent. The daemon is up now: retry (with a longer --timeout if the machine is busy).",
    data: { timeout_ms: timeoutMs, stage: "daemon_start" },
  });
}

function callAs(conn: Connection, frame: RequestFrameOut, opts: CallOptions): Promise<Reply> {
  return new Promise<Reply>((resolve) => {
    let done = false;
    let interrupts = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onSigint = () => {
      interrupts++;
      if (interrupts === 1) {
        conn.write(`${JSON.stringify({ id: `${frame.id}.cancel`, method: "cancel", params: { id: frame.id } })}\n`);
        clearTimeout(timer);
        timer = setTimeout(
          () =>
            finish({
              ok: false,
              interrupted: true,
              error: new BskError("cancelled", "cancelled; the daemon did not confirm in time, so the call may still have run", {
                data: { confirmed: false },
              }),
            }),
          opts.cancelWaitMs ?? 2_000,
        );
      } else {
        finish({
          ok: false,
          interrupted: true,
          error: new BskError("cancelled", "cancelled (interrupted twice)", { data: { confirmed: false } }),
        });
      }
    };
    const finish = (reply: Reply) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (opts.cancelOnInterrupt) process.off("SIGINT", onSigint);
      resolve(reply);
    };
    conn.onLine = (line) => {
      let msg: { id?: unknown; result?: unknown; error?: ErrorBody; meta?: Reply["meta"] };
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      if (!msg || typeof msg !== "object") return;
      if ("event" in msg && !("id" in msg)) {
        opts.onEvent?.(msg as unknown as StreamedEvent);
        return;
      }
      // `id: null` is the daemon saying it could not read our frame; it is ours (one request per connection).
      if (msg.id !== frame.id && !(msg.id === null && msg.error)) return;
      const interrupted = interrupts > 0;
      if (msg.error) finish({ ok: false, error: BskError.from(msg.error), meta: msg.meta, interrupted });
      else finish({ ok: true, result: msg.result, meta: msg.meta, interrupted });
    };
    conn.onClose = () =>
      finish({
        ok: false,
        interrupted: interrupts > 0,
        error: new BskError("protocol_error", "the daemon closed the connection before replying", {
          hint: opts.dropHint ?? "The daemon went away mid-call; see bsk logs, check the state, then retry.",
          data: { reason: "connection_lost" },
        }),
      });
    if (opts.cancelOnInterrupt) process.on("SIGINT", onSigint);
    timer = setTimeout(
      () =>
        finish({
          ok: false,
          interrupted: false,
          error: new BskError("timeout", `no reply from the daemon within ${Math.round(opts.giveUpMs / 1000)} s`, {
            hint: "The daemon did not answer in time; check bsk status and bsk logs, then retry with a longer --timeout.",
            data: { reason: "no_reply" },
          }),
        }),
      opts.giveUpMs,
    );
    conn.write(`${JSON.stringify(frame)}\n`);
  });
}

let seq = 0;

/** Request ids are unique per invocation and across processes: `<pid>-<n>`. */
export function nextRequestId(): string {
  return `${process.pid}-${++seq}`;
}
