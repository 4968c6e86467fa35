/**
 * The CLI link: JSONL over a Unix socket (on Windows a named pipe, shared/home.ts) and, unless BSK_TRANSPORT=unix, a loopback TCP port (for agents whose
 * sandbox hides or blocks the socket). Any number of requests may be in flight on one connection; each reply is one
 * line written in one write (the rest queued only under backpressure). A connection that closes cancels its calls
 * still in flight. Before anything else a client proves it holds this home's link key and the daemon proves it back
 * (shared/link-proof.ts): until then a line is at most 1 KiB, the connection does not count as a client, and one that
 * fails gets one permission_denied frame (reason unproven_client) and is closed before anything it sent is read.
 * On the socket, which lives in a folder only this user may enter (socket-dir.ts), a peer of another uid, where the
 * kernel tells (peer-cred.ts), is refused the same way (reason foreign_peer) before its hello is read.
 */
import { chmodSync } from "node:fs";
import { toErrorBody, BskError } from "../protocol/errors.ts";
import { encodeFrame, MAX_FRAME_BYTES, parseFrame } from "../protocol/frames.ts";
import { cancelledError, type Call } from "./call.ts";
import type { ClientLink } from "./context.ts";
import type { Dispatcher } from "./dispatch.ts";
import { removeFile } from "../shared/fs-util.ts";
import { isPipe, type HomePaths } from "../shared/home.ts";
import { LINK_HELLO_MAX_BYTES, LINK_PROOF_MS, LinkProofServer, tcpTransport, unixTransport, unprovenClient } from "../shared/link-proof.ts";
import { LineReader } from "./jsonl.ts";
import type { Logger } from "./log.ts";
import { peerCredAvailable, peerUid } from "./peer-cred.ts";
import { prepareSocketDir } from "../shared/socket-dir.ts";

interface Conn extends ClientLink {
  id: number;
  reader: LineReader;
  out: Uint8Array[];
  closed: boolean;
  /** Until the client proved the link key; undefined once it has. */
  proof?: LinkProofServer;
  proofTimer?: ReturnType<typeof setTimeout>;
}

type Sock = import("bun").Socket<Conn>;

/** How long a refused peer has to read its refusal before the connection is cut. */
const REFUSED_LINGER_MS = 5000;

export interface IpcServer {
  /** Proven clients connected. */
  readonly connections: number;
  /** The loopback TCP port of the CLI link, or undefined when it listens only on the socket. */
  readonly tcpPort: number | undefined;
  /** Take no new connections (the socket file goes, so clients see the daemon as gone). */
  stopAccepting(): void;
  /** Close every connection. */
  close(): void;
}

export function startIpcServer(opts: {
  paths: HomePaths;
  log: Logger;
  dispatcher: Dispatcher;
  onChange: () => void;
  /** This home's link key (shared/link-key.ts). */
  linkKey: Uint8Array;
  /** Also listen on 127.0.0.1, port chosen by the kernel. */
  tcp: boolean;
  maxFrameBytes?: number;
}): IpcServer {
  const { log, dispatcher } = opts;
  const socketPath = opts.paths.socket;
  const maxFrame = opts.maxFrameBytes ?? MAX_FRAME_BYTES;
  const pipe = isPipe(socketPath);
  prepareSocketDir(opts.paths);
  if (!pipe) removeFile(socketPath);
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid !== undefined && !peerCredAvailable()) {
    // bun:ffi needs JavaScriptCore's JIT, which a background daemon runs without (cli/autostart.ts daemonEnv).
    const why = process.env.BUN_JSC_useJIT === "0" ? "this daemon runs without the JIT, which bun:ffi needs" : "bun:ffi could not load";
    log.info("peer credentials unavailable; the socket's private folder and the link proof guard it", { why });
  }

  const encoder = new TextEncoder();
  const conns = new Set<Sock>();
  let nextConnId = 0;

  const write = (sock: Sock, frame: object | string) => {
    const c = sock.data;
    if (c.closed) return;
    const bytes = encoder.encode(typeof frame === "string" ? frame : `${encodeFrame(frame)}\n`);
    if (c.out.length) {
      c.out.push(bytes);
      return;
    }
    const n = sock.write(bytes);
    if (n >= 0 && n < bytes.length) c.out.push(bytes.subarray(n));
  };

  const protocolError = (sock: Sock, id: string | number | null, message: string, reason?: string) =>
    write(sock, {
      id,
      error: toErrorBody(new BskError("protocol_error", message, reason ? { data: { reason } } : {})),
    });

  /** One error frame, then our side ends (FIN, the client reads it to its end); the socket is left open (what it
   * sends is dropped) until it hangs up or the linger ends, since closing at once, with its request unread, would
   * reset the connection and lose the refusal on its way. */
  const refuse = (sock: Sock, err: BskError) => {
    const c = sock.data;
    write(sock, { id: null, error: toErrorBody(err) });
    if (!c.out.length) sock.shutdown();
    c.closed = true;
    clearTimeout(c.proofTimer);
    setTimeout(() => sock.end(), REFUSED_LINGER_MS).unref();
  };

  const onProofLine = (sock: Sock, proof: LinkProofServer, line: string) => {
    const c = sock.data;
    const step = proof.take(line);
    if (step.kind === "reply") return write(sock, step.line);
    if (step.kind === "refused") {
      log.warn("refused a client without the link key", { conn: c.id, why: step.why });
      return refuse(sock, unprovenClient(step.why));
    }
    clearTimeout(c.proofTimer);
    c.proof = undefined;
    c.reader.maxBytes = maxFrame;
    conns.add(sock);
    opts.onChange();
  };

  const onLine = (sock: Sock, line: string) => {
    if (sock.data.closed) return;
    if (sock.data.proof) return onProofLine(sock, sock.data.proof, line);
    const parsed = parseFrame(line);
    if (!parsed.ok) return protocolError(sock, parsed.id, parsed.message);
    if (parsed.value.kind !== "request") {
      const id = "id" in parsed.value.frame ? parsed.value.frame.id : null;
      return protocolError(sock, id, "the daemon accepts only request frames on this socket");
    }
    const frame = parsed.value.frame;
    dispatcher.handle(frame, sock.data).then(
      (reply) => {
        write(sock, reply.frame);
        reply.afterReply?.();
      },
      (err) => {
        log.error("dispatch threw", { error: err, method: frame.method });
        write(sock, { id: frame.id, error: toErrorBody(err) });
      },
    );
  };

  const handlers = (transport: () => string, checkPeer: boolean): import("bun").SocketHandler<Conn> => ({
    open(sock) {
      const peer = checkPeer && uid !== undefined ? peerUid(sock) : undefined;
      if (peer !== undefined && peer !== uid) {
        log.warn("refused a connection from another user", { peer_uid: peer });
        sock.data = { closed: true } as Conn;
        sock.write(`${encodeFrame({ id: null, error: toErrorBody(foreignPeer(peer, uid!)) })}\n`);
        setTimeout(() => sock.end(), REFUSED_LINGER_MS).unref();
        return;
      }
      const conn: Conn = {
        id: ++nextConnId,
        calls: new Map<string, Call>(),
        push: (frame) => write(sock, frame),
        out: [],
        closed: false,
        proof: new LinkProofServer(opts.linkKey, transport()),
        reader: new LineReader(
          LINK_HELLO_MAX_BYTES,
          (line) => onLine(sock, line),
          () =>
            sock.data.proof
              ? refuse(sock, unprovenClient("its first line is larger than a hello"))
              : protocolError(sock, null, "frame larger than 16 MiB", "frame_too_large"),
        ),
      };
      sock.data = conn;
      conn.proofTimer = setTimeout(() => {
        if (conn.proof && !conn.closed) refuse(sock, unprovenClient(`it did not prove the link key within ${LINK_PROOF_MS / 1000} s`));
      }, LINK_PROOF_MS);
      conn.proofTimer.unref();
    },
    data(sock, chunk) {
      if (sock.data.closed) return;
      try {
        sock.data.reader.push(chunk);
      } catch (err) {
        log.error("ipc frame handling failed", { error: err, conn: sock.data.id });
      }
    },
    drain(sock) {
      const c = sock.data;
      if (!c.reader) return;
      while (c.out.length) {
        const head = c.out[0]!;
        const n = sock.write(head);
        if (n < 0) return;
        if (n < head.length) {
          c.out[0] = head.subarray(n);
          return;
        }
        c.out.shift();
      }
    },
    close(sock) {
      const c = sock.data;
      clearTimeout(c?.proofTimer);
      if (!c || !conns.has(sock)) {
        if (c) c.closed = true;
        return;
      }
      c.closed = true;
      conns.delete(sock);
      for (const call of c.calls.values()) call.abort(cancelledError(call.method, { reason: "connection_closed" }));
      opts.onChange();
    },
    error(sock, err) {
      log.warn("ipc socket error", { error: err, conn: sock.data?.id });
    },
  });

  // Restrict the socket from its creation: the run dir is 0700, but a hashed /tmp path has no such parent.
  const oldMask = process.umask(0o177);
  let listener: import("bun").UnixSocketListener<Conn>;
  try {
    listener = Bun.listen<Conn>({ unix: socketPath, socket: handlers(() => unixTransport(socketPath), !pipe) });
  } catch (err) {
    throw listenFailed(socketPath, err);
  } finally {
    process.umask(oldMask);
  }
  if (!pipe) chmodSync(socketPath, 0o600);
  let tcp: import("bun").TCPSocketListener<Conn> | undefined;
  if (opts.tcp) {
    try {
      tcp = Bun.listen<Conn>({ hostname: "127.0.0.1", port: 0, socket: handlers(() => tcpTransport(tcp!.port), false) });
    } catch (err) {
      listener.stop(true);
      if (!pipe) removeFile(socketPath);
      throw listenFailed("127.0.0.1:0", err);
    }
  }

  return {
    get connections() {
      return conns.size;
    },
    get tcpPort() {
      return tcp?.port;
    },
    stopAccepting() {
      listener.stop(false);
      tcp?.stop(false);
      if (!pipe) removeFile(socketPath);
    },
    close() {
      for (const sock of conns) sock.end();
      listener.stop(true);
      tcp?.stop(true);
    },
  };
}

function foreignPeer(peer: number, uid: number): BskError {
  return new BskError("permission_denied", `this bsk daemon serves only its own user (uid ${uid}); you are uid ${peer}`, {
    hint: "Run bsk as the user whose daemon this is, or use your own BSK_HOME (each user has their own daemon).",
    data: { reason: "foreign_peer" },
  });
}

/** A listen that failed, said as what it is (not a frame error), with what to do about it. */
export function listenFailed(address: string, err: unknown): BskError {
  const why = err instanceof Error ? err.message : String(err);
  const errno = (err as NodeJS.ErrnoException)?.code;
  const hint = isPipe(address)
    ? "Another program holds this named pipe: a daemon of this home still stopping (bsk daemon stop, then start again) " +
      "or another program posing as it; or give bsk another home (BSK_HOME)."
    : "Check that no other daemon of this home runs (bsk daemon status) and that the socket's folder is yours and " +
      "writable; or give bsk a home in a folder of your own (BSK_HOME).";
  return new BskError("unsupported", `the bsk daemon could not listen at ${address}: ${why}`, {
    hint,
    data: { reason: "listen_failed", address, ...(typeof errno === "string" ? { errno } : {}) },
  });
}
