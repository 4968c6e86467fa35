/**
 * The CLI link: JSONL over a Unix socket (on Windows a named pipe, shared/home.ts). Any number of requests may be in flight on one connection;
 * each reply is one line written in one write (the rest queued only under backpressure).
 * A connection that closes cancels its calls still in flight. The socket lives in a folder only this user
 * may enter (socket-dir.ts), and a peer of another uid, where the kernel tells (peer-cred.ts), gets one
 * permission_denied frame (reason foreign_peer) and is closed before anything it sends is read.
 */
import { chmodSync } from "node:fs";
import { toErrorBody, BskError } from "../protocol/errors.ts";
import { encodeFrame, MAX_FRAME_BYTES, parseFrame } from "../protocol/frames.ts";
import { cancelledError, type Call } from "./call.ts";
import type { ClientLink } from "./context.ts";
import type { Dispatcher } from "./dispatch.ts";
import { removeFile } from "../shared/fs-util.ts";
import { isPipe, type HomePaths } from "../shared/home.ts";
import { LineReader } from "./jsonl.ts";
import type { Logger } from "./log.ts";
import { peerCredAvailable, peerUid } from "./peer-cred.ts";
import { prepareSocketDir } from "../shared/socket-dir.ts";

interface Conn extends ClientLink {
  id: number;
  reader: LineReader;
  out: Uint8Array[];
  closed: boolean;
}

type Sock = import("bun").Socket<Conn>;

/** How long a refused peer has to read its refusal before the connection is cut. */
const REFUSED_LINGER_MS = 5000;

export interface IpcServer {
  readonly connections: number;
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
  maxFrameBytes?: number;
}): IpcServer {
  const { log, dispatcher } = opts;
  const socketPath = opts.paths.socket;
  const maxFrame = opts.maxFrameBytes ?? MAX_FRAME_BYTES;
  const pipe = isPipe(socketPath);
  prepareSocketDir(opts.paths);
  if (!pipe) removeFile(socketPath);
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid !== undefined && !peerCredAvailable()) log.warn("peer credentials unavailable; the socket's private folder is the only guard");

  const encoder = new TextEncoder();
  const conns = new Set<Sock>();
  let nextConnId = 0;

  const write = (sock: Sock, frame: object) => {
    const c = sock.data;
    if (c.closed) return;
    const bytes = encoder.encode(`${encodeFrame(frame)}\n`);
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

  const onLine = (sock: Sock, line: string) => {
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

  // Restrict the socket from its creation: the run dir is 0700, but a hashed /tmp path has no such parent.
  const oldMask = process.umask(0o177);
  let listener: import("bun").UnixSocketListener<Conn>;
  try {
    listener = Bun.listen<Conn>({
      unix: socketPath,
      socket: {
        open(sock) {
          const peer = uid === undefined ? undefined : peerUid(sock);
          if (peer !== undefined && peer !== uid) {
            log.warn("refused a connection from another user", { peer_uid: peer });
            sock.data = { closed: true } as Conn;
            // Left open (what it sends is dropped) until it hangs up or the linger ends: closing at once, with
            // its request unread, would reset the connection and lose the refusal on its way.
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
            reader: new LineReader(
              maxFrame,
              (line) => onLine(sock, line),
              () => protocolError(sock, null, "frame larger than 16 MiB", "frame_too_large"),
            ),
          };
          sock.data = conn;
          conns.add(sock);
          opts.onChange();
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
          if (!c || c.closed) return;
          c.closed = true;
          conns.delete(sock);
          for (const call of c.calls.values()) call.abort(cancelledError(call.method, { reason: "connection_closed" }));
          opts.onChange();
        },
        error(sock, err) {
          log.warn("ipc socket error", { error: err, conn: sock.data?.id });
        },
      },
    });
  } catch (err) {
    throw listenFailed(socketPath, err);
  } finally {
    process.umask(oldMask);
  }
  if (!pipe) chmodSync(socketPath, 0o600);

  return {
    get connections() {
      return conns.size;
    },
    stopAccepting() {
      listener.stop(false);
      if (!pipe) removeFile(socketPath);
    },
    close() {
      for (const sock of conns) sock.end();
      listener.stop(true);
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
