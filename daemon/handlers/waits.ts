/**
 * wait: a fixed pause (at most 5 minutes, the schema's bound), answered by the daemon. It ends early when the call
 * is cancelled (cancel, Ctrl-C, a closed connection) and fails with timeout when the caller's own timeout
 * (meta.timeout_ms) is shorter than the pause; the daemon's deadline, extended by the catalog's waitParam to cover
 * the pause, is the backstop. With a session id it is a call of that live session (an ended one is refused, as any
 * session call is): the session's idle and lease clocks stop while it waits and restart when it is done.
 */
import type { ParsedParams, Result } from "../../protocol/catalog.ts";
import { BskError } from "../../protocol/errors.ts";
import type { Call } from "../call.ts";
import type { DaemonHandler } from "./types.ts";

const wait: DaemonHandler<"wait"> = async ({ call, ctx, params }) => {
  const { session_id } = params;
  if (session_id === undefined) return pause(call, params);
  const rt = ctx.sessions.lookup(session_id);
  call.sessionId = session_id;
  ctx.sessions.beginCall(rt, call);
  try {
    return await pause(call, params);
  } finally {
    ctx.sessions.endCall(rt, call);
  }
};

async function pause(call: Call, { duration_ms }: ParsedParams<"wait">): Promise<Result<"wait">> {
  const started = performance.now();
  const limit = call.meta.timeout_ms;
  const cut = limit !== undefined && limit < duration_ms;
  const ms = cut ? limit : duration_ms;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      call.signal.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(call.signal.reason);
    }
    if (call.signal.aborted) return aborted();
    call.signal.addEventListener("abort", aborted, { once: true });
  });
  if (cut) {
    throw new BskError("timeout", `wait ${duration_ms} ms was cut off by --timeout ${limit} ms`, {
      hint: "Give --timeout longer than the wait, or wait for what you need with bsk wait-for.",
      data: { timeout_ms: limit, duration_ms, stage: "daemon" },
    });
  }
  return { waited_ms: Math.round(performance.now() - started) };
}

export const waitHandlers = { wait };
