/**
 * The last hop for extension-owned methods: send the call to its session's browser with the time left
 * before the deadline, and fold the extension's timings into the call's. If the browser is reconnecting
 * (a service-worker blip, a daemon restart) the call waits for it within its own deadline.
 */
import { BskError, type ErrorBody } from "../protocol/errors.ts";
import type { ExtensionReply } from "./browsers.ts";
import { timeoutError, type Call } from "./call.ts";
import type { DaemonContext } from "./context.ts";
import type { SessionRuntime } from "./sessions.ts";

export async function forwardToBrowser(ctx: DaemonContext, call: Call, rt: SessionRuntime): Promise<unknown> {
  const instance = rt.record.browser_instance_id;
  let conn = ctx.browsers.get(instance);
  if (!conn) {
    call.stage = "browser_wait";
    conn = await ctx.browsers.waitFor(() => ctx.browsers.get(instance), call.remainingMs(), call.signal);
    if (!conn) throw timeoutError(call, "browser_wait");
  }
  // An op still syncing: an extension that holds input gets the call now and `op.durable` later; any other, after.
  const syncing = call.durable && !call.durable.done ? call.durable.promise : undefined;
  if (syncing && !conn.holdsInput) {
    call.stage = "ledger";
    await syncing;
  }
  call.stage = "extension";
  const pending = conn.forward(call.method, call.params, {
    traceId: call.traceId,
    timeoutMs: call.remainingMs(),
    signal: call.signal,
    onProgress: call.onProgress,
    ...(syncing && conn.holdsInput && { holdUntil: syncing }),
  });
  call.dispatched = true;
  const result = settle(call, await pending);
  ctx.sessions.noteResult(rt, call.method, result);
  return result;
}

/** Fold the extension's reply into the call: its hop timings, the relay time around them, its result or error. */
export function settle<R>(call: Call, reply: ExtensionReply<R>): R | undefined {
  const deadline = reply.error?.code === "timeout" && reply.error.data?.stage === "extension";
  // An answer to the call's deadline still leaves it cut off mid-way (call.interrupted), as the daemon's own would.
  call.answered = !deadline;
  for (const [hop, ms] of Object.entries(reply.timings)) {
    if (typeof ms === "number" && !(hop in call.timings)) call.timings[hop] = ms;
  }
  const ext = typeof reply.timings.extension === "number" ? reply.timings.extension : undefined;
  call.timings.relay = round(ext === undefined ? reply.rttMs : Math.max(0, reply.rttMs - ext));
  if (reply.error) throw deadline ? browserTimeout(call, reply.error) : BskError.from(reply.error);
  return reply.result;
}

/** The browser's answer to the call's deadline: the daemon's words for the deadline, the browser's for the page. */
function browserTimeout(call: Call, error: ErrorBody): BskError {
  const own = timeoutError(call, "extension");
  return new BskError("timeout", own.message, { hint: error.hint ?? own.hint, data: { ...error.data, ...own.data } });
}

export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
