/**
 * Per-session order: one call runs at a time, the others wait in arrival order in a bounded queue.
 * A waiting call whose signal aborts (deadline, cancel, session end) leaves the queue at once.
 */
import { BskError } from "../protocol/errors.ts";

interface Waiter {
  start: () => void;
}

export class SessionQueue {
  private running = false;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limit: number) {}

  /** Calls waiting behind the running one. */
  get depth(): number {
    return this.waiting.length;
  }

  get busy(): boolean {
    return this.running;
  }

  /** Run `fn` when its turn comes; rejects with `signal.reason` if aborted while waiting. */
  async run<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    if (signal.aborted) throw signal.reason;
    if (this.running) await this.wait(signal);
    else this.running = true;
    try {
      return await fn();
    } finally {
      this.next();
    }
  }

  private wait(signal: AbortSignal): Promise<void> {
    if (this.waiting.length >= this.limit) {
      return Promise.reject(
        new BskError("session_busy", `${this.waiting.length} calls are already waiting on this session`, {
          data: { reason: "queue_full", limit: this.limit },
        }),
      );
    }
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const onAbort = () => {
      const i = this.waiting.indexOf(waiter);
      if (i >= 0) this.waiting.splice(i, 1);
      reject(signal.reason);
    };
    const waiter: Waiter = {
      start: () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
    };
    signal.addEventListener("abort", onAbort, { once: true });
    this.waiting.push(waiter);
    return promise;
  }

  private next(): void {
    const w = this.waiting.shift();
    if (w) w.start();
    else this.running = false;
  }
}
