/** A tiny JSONL client for the daemon's Unix socket: many requests in flight, replies matched by id. */
import { AsyncQueue } from "./async-queue.ts";

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

  static async connect(socketPath: string): Promise<IpcClient> {
    const c = new IpcClient();
    // A multi-byte character may be split between two chunks.
    const decoder = new TextDecoder();
    c.sock = await Bun.connect({
      unix: socketPath,
      socket: {
        data: (_s, chunk) => c.onData(decoder.decode(chunk, { stream: true })),
        drain: () => c.flush(),
        close: () => c.onClose(),
        error: () => c.onClose(),
      },
    });
    return c;
  }

  private onData(text: string): void {
    this.buf += text;
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
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
