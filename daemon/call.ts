/**
 * One request on its way through the daemon: its deadline, its abort signal (deadline, cancel,
 * connection closed, session ended) and the timings reported back in `meta.timings`.
 */
import type { MethodDef } from "../protocol/define.ts";
import { BROWSER_TIMEOUT_HINT, BskError } from "../protocol/errors.ts";
import type { MethodName } from "../protocol/catalog.ts";
import type { CallProgress, RequestMeta } from "../protocol/frames.ts";

export type CallId = string | number;

export class Call {
  readonly controller = new AbortController();
  /** Rejects with the abort reason; raced against the call's stages. */
  readonly aborted: Promise<never>;
  readonly deadlineAt: number;
  readonly timings: Record<string, number> = {};
  sessionId?: string;
  opId?: string;
  /** This call reserved its op in the ledger and owes it an outcome. */
  opReserved = false;
  /** Answered from the ledger's record of an earlier call with the same op_id. */
  replayed = false;
  /** The recorded effect_state of the op a replay answers with. */
  replayedEffect?: "committed" | "none" | "unknown";
  /**
   * The op's ledger line while it is being synced (reserved apart): the extension may prepare the call meanwhile, and
   * holds its input until the line is on disk (forward.ts). `done` once it is.
   */
  durable?: { promise: Promise<void>; done: boolean };
  /** Sent to the extension; after this a failure leaves the effect unknown. */
  dispatched = false;
  /** The extension answered (with a result or an error other than its answer to the call's deadline). */
  answered = false;
  /** Where the call is (daemon, queue, browser_wait, extension): named in a timeout. */
  stage = "daemon";
  /** Passes the extension's progress notes on to the CLI that made the call (set by the dispatcher). */
  onProgress?: (p: CallProgress) => void;
  /** Runs once the reply is written (system.shutdown replies before stopping). */
  afterReply?: () => void;

  constructor(
    readonly id: CallId,
    readonly method: MethodName,
    readonly def: MethodDef,
    readonly params: Record<string, unknown>,
    readonly meta: RequestMeta,
    readonly traceId: string,
    readonly receivedAt: number,
    readonly budgetMs: number,
  ) {
    this.deadlineAt = receivedAt + budgetMs;
    const { promise, reject } = Promise.withResolvers<never>();
    promise.catch(() => {});
    this.aborted = promise;
    this.controller.signal.addEventListener("abort", () => reject(this.controller.signal.reason), { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remainingMs(now = performance.now()): number {
    return Math.max(0, Math.round(this.deadlineAt - now));
  }

  abort(reason: BskError): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }
}

export function timeoutError(call: Call, stage: string): BskError {
  return new BskError("timeout", `${call.method} did not finish within ${call.budgetMs} ms (${stage})`, {
    ...(stage === "extension" && { hint: BROWSER_TIMEOUT_HINT }),
    data: { timeout_ms: call.budgetMs, stage },
  });
}

export function cancelledError(what: string, data?: Record<string, unknown>): BskError {
  return new BskError("cancelled", `${what} was cancelled`, data ? { data } : {});
}

export function mintTraceId(): string {
  const b = crypto.getRandomValues(new Uint8Array(8));
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}
