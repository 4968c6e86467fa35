/**
 * record start / record stop. A recording is a session of its own: record start opens it (as session start does),
 * has the extension begin recording in its tab, then waits for the extension's record.await to answer with the
 * trace (Finish, record stop, the timeout, the tab closing). That wait is not a call of the session, so a person
 * closing the window does not cut it off before the trace arrives; it holds the session's idle clock instead. A
 * worker restart or a reconnect loses the wait, not the recording (it lives in the extension's storage): the
 * daemon waits again. Ctrl-C ends the session, and with it the recording.
 */
import { METHODS, type Result } from "../../protocol/catalog.ts";
import { BskError } from "../../protocol/errors.ts";
import type { RecordTraceT } from "../../protocol/trace.ts";
import type { BrowserConn } from "../browsers.ts";
import { timeoutError, type Call } from "../call.ts";
import type { DaemonContext } from "../context.ts";
import { settle } from "../forward.ts";
import { openSession } from "./session.ts";
import type { DaemonHandler } from "./types.ts";

/** Live recordings of each daemon: session id → its browser's instance id. */
const recordings = new WeakMap<DaemonContext, Map<string, string>>();

function recordingsOf(ctx: DaemonContext): Map<string, string> {
  let m = recordings.get(ctx);
  if (!m) recordings.set(ctx, (m = new Map()));
  return m;
}

async function connOf(ctx: DaemonContext, call: Call, instance: string): Promise<BrowserConn> {
  const conn =
    ctx.browsers.get(instance) ?? (await ctx.browsers.waitFor(() => ctx.browsers.get(instance), call.remainingMs(), call.signal));
  if (!conn) throw timeoutError(call, "browser_wait");
  return conn;
}

function isBrowserGone(err: unknown): boolean {
  return err instanceof BskError && err.data?.reason === "browser_gone";
}

/** Waits for the recording's trace, asking again after the browser's link dropped and came back. */
async function awaitTrace(ctx: DaemonContext, call: Call, sessionId: string, instance: string): Promise<RecordTraceT> {
  for (;;) {
    const conn = await connOf(ctx, call, instance);
    try {
      const reply = await conn.request(
        "record.await",
        { session_id: sessionId },
        { traceId: call.traceId, timeoutMs: call.remainingMs(), signal: call.signal },
      );
      const parsed = METHODS["record.await"].result().safeParse(settle(call, reply));
      if (!parsed.success) throw new BskError("protocol_error", "the extension answered record.await with a malformed trace");
      return parsed.data.trace;
    } catch (err) {
      if (call.signal.aborted || !isBrowserGone(err)) throw err;
    }
  }
}

const start: DaemonHandler<"record.start"> = async ({ call, ctx, params: p }) => {
  const opened = await openSession(ctx, call, {
    browser: p.browser,
    name: p.purpose ? `record: ${p.purpose}` : "recording",
    focus: true,
    launch: false,
    observe: [],
    block_requests: false,
    isolated: false,
    where: "window",
    borrow: true,
    confirm_writes: false,
  });
  const sessionId = opened.session_id;
  call.sessionId = sessionId;
  const rt = ctx.sessions.lookup(sessionId);
  const release = ctx.sessions.hold(rt);
  const live = recordingsOf(ctx);
  let endReason = "record_failed";
  try {
    const conn = await connOf(ctx, call, opened.browser_instance_id);
    const begun = settle(
      call,
      await conn.request(
        "record.begin",
        { session_id: sessionId, tab_id: opened.tab_id, url: p.url, purpose: p.purpose, timeout_ms: p.timeout_ms },
        { traceId: call.traceId, timeoutMs: call.remainingMs(), signal: call.signal },
      ),
    );
    if (!METHODS["record.begin"].result().safeParse(begun).success)
      throw new BskError("protocol_error", "the extension answered record.begin with a malformed result");
    live.set(sessionId, opened.browser_instance_id);
    ctx.log.info("recording started", { session: sessionId, trace_id: call.traceId });
    const trace = await awaitTrace(ctx, call, sessionId, opened.browser_instance_id);
    endReason = "record_finished";
    ctx.log.info("recording finished", { session: sessionId, stopped_by: trace.stopped_by, steps: trace.steps.length });
    return { session_id: sessionId, tab_id: opened.tab_id, trace } satisfies Result<"record.start">;
  } catch (err) {
    if (call.signal.aborted) endReason = "record_cancelled";
    throw err;
  } finally {
    live.delete(sessionId);
    release();
    void ctx.sessions.endSession(sessionId, endReason, { traceId: call.traceId });
  }
};

const stop: DaemonHandler<"record.stop"> = async ({ call, ctx, params: p }) => {
  const live = recordingsOf(ctx);
  let sessionId = p.session_id;
  if (!sessionId) {
    const ids = [...live.keys()];
    if (ids.length !== 1) {
      throw new BskError(
        ids.length ? "invalid_params" : "not_found",
        ids.length ? `${ids.length} recordings are running` : "no recording is running",
        {
          hint: ids.length ? `Name one: bsk record stop --session ${ids[0]}` : "Start one with: bsk record start",
          data: { reason: ids.length ? "ambiguous_recording" : "no_recording", sessions: ids },
        },
      );
    }
    sessionId = ids[0]!;
  }
  const instance = live.get(sessionId);
  if (!instance) {
    throw new BskError("not_found", `session ${sessionId} is not recording`, {
      hint: "bsk session list shows the sessions; a recording's name starts with record.",
      data: { reason: "no_recording", session_id: sessionId },
    });
  }
  call.sessionId = sessionId;
  const conn = await connOf(ctx, call, instance);
  const reply = await conn.request(
    "record.finish",
    { session_id: sessionId, stopped_by: "stop" },
    { traceId: call.traceId, timeoutMs: call.remainingMs(), signal: call.signal },
  );
  const { steps } = settle(call, reply)!;
  return { session_id: sessionId, steps } satisfies Result<"record.stop">;
};

export const recordingHandlers = { "record.start": start, "record.stop": stop };
