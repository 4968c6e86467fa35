/**
 * A tiny JSONL client for the daemon's CLI link (its Unix socket, or its loopback TCP port): it proves the link key
 * as the CLI does (shared/link-proof.ts), then many requests in flight, replies matched by id. `connectRaw` skips
 * the proof (a client without the key).
 */
import { readLinkKey } from "../../shared/link-key.ts";
import { answerDaemon, clientHello, tcpTransport, unixTransport } from "../../shared/link-proof.ts";
import { AsyncQueue } from "./async-queue.ts";

/** Where a client dials: the daemon's home paths (socket and link key), optionally its TCP port instead. */
export interface LinkTarget {
  socket: string;
  linkKey: string;
}

export interface Reply {
  id: string | number | null;
  result?: any;
  error?: { code: string; message: string; hint?: string; data?: any };
  meta?: { trace_id?: string; timings?: Record<string, number>; [k: string]: unknown };
}

export class IpcClient {
  private buf = "";
  private counter = 0;
  private readonly waiting = new Map<string, (r: Reply) => void>();
  /** Replies no request of ours waits for (id null, unknown ids). */
  readonly unmatched = new AsyncQueue<Reply>();
  readonly closed: Promise<void>;
  private sock!: Awaited<ReturnType<typeof Bun.connect>>;

  private constructor() {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.closed = promise;
    this.onClose = resolve;
  }

  private onClose: () => void;

  /** Connected and proven both ways (throws when the daemon's proof does not check out). */
  static async connect(target: LinkTarget, opts: { tcpPort?: number } = {}): Promise<IpcClient> {
    const c = await IpcClient.connectRaw(opts.tcpPort === undefined ? { unix: target.socket } : { port: opts.tcpPort });
    const transport = opts.tcpPort === undefined ? unixTransport(target.socket) : tcpTransport(opts.tcpPort);
    const hello = clientHello();
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    c.onFirstLine = (line) => {
      const answer = answerDaemon(readLinkKey(target.linkKey), transport, hello, line);
      if (!answer.ok) return reject(new Error(`the daemon did not prove itself: ${answer.why}`));
      c.sendRaw(answer.line.trimEnd());
      resolve();
    };
    c.closed.then(() => reject(new Error("closed before the daemon proved itself")));
    c.sendRaw(hello.line.trimEnd());
    await promise;
    return c;
  }

  /** Connected, nothing sent: the caller speaks (or skips) the proof itself. */
  static async connectRaw(to: { unix: string } | { port: number }): Promise<IpcClient> {
    const c = new IpcClient();
    // A multi-byte character may be split between two chunks.
    const decoder = new TextDecoder();
    const socket = {
      data: (_s: unknown, chunk: Uint8Array) => c.onData(decoder.decode(chunk, { stream: true })),
      drain: () => c.flush(),
      close: () => c.onClose(),
      end: () => c.onClose(),
      error: () => c.onClose(),
    };
    c.sock = await ("unix" in to ? Bun.connect({ unix: to.unix, socket }) : Bun.connect({ hostname: "127.0.0.1", port: to.port, socket }));
    return c;
  }

  /** Set by connect until the daemon's proof line came: it takes that line instead of the reply queues. */
  private onFirstLine: ((line: string) => void) | undefined;

  private onData(text: string): void {
    this.buf += text;
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      const first = this.onFirstLine;
      if (first) {
        this.onFirstLine = undefined;
        first(line);
        continue;
      }
      const reply = JSON.parse(line) as Reply;
      const key = reply.id === null ? undefined : String(reply.id);
      const w = key === undefined ? undefined : this.waiting.get(key);
      if (w) {
        this.waiting.delete(key!);
        w(reply);
      } else this.unmatched.push(reply);
    }
  }

  nextId(): string {
    return `t${process.pid}-${++this.counter}`;
  }

  /** Send a request; resolves with its reply (result or error). */
  request(method: string, params?: Record<string, unknown>, meta?: Record<string, unknown>, id = this.nextId()): Promise<Reply> {
    const { promise, resolve } = Promise.withResolvers<Reply>();
    this.waiting.set(String(id), resolve);
    this.send({ id, method, ...(params && { params }), ...(meta && { meta }) });
    return promise;
  }

  /** The result, or throw with the error's code. */
  async call(method: string, params?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<any> {
    const r = await this.request(method, params, meta);
    if (r.error) throw Object.assign(new Error(`${method}: ${r.error.code}: ${r.error.message}`), { reply: r });
    return r.result;
  }

  send(frame: object): void {
    this.sendRaw(JSON.stringify(frame));
  }

  /** Write a line, queueing what the socket does not take at once (large frames). */
  sendRaw(text: string): void {
    this.out.push(new TextEncoder().encode(`${text}\n`));
    this.flush();
  }

  private out: Uint8Array[] = [];

  private flush(): void {
    while (this.out.length) {
      const head = this.out[0]!;
      const n = this.sock.write(head);
      if (n < 0) return;
      if (n < head.length) {
        this.out[0] = head.subarray(n);
        return;
      }
      this.out.shift();
    }
  }

  close(): void {
    this.sock.end();
  }
}
