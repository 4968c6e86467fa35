/**
 * The dispatch path every client request takes, one small stage each:
 *   method → params → op ledger (BrowserMutation) → daemon handler, or
 *   session lookup → effect gate → per-session queue → the session's browser → event log.
 * Every call has a deadline; the deadline, a `cancel`, a closed connection or the session's end abort it,
 * and the caller is answered at once while the stages unwind behind it.
 */
import { approvalOf } from "../protocol/approval.ts";
import { EFFECTS, type MethodName } from "../protocol/catalog.ts";
import { BROWSER_TIMEOUT_FALLBACK_MS, BskError, toErrorBody, type ErrorBody } from "../protocol/errors.ts";
import { CALL_PROGRESS, type RequestFrame } from "../protocol/frames.ts";
import { Call, mintTraceId, timeoutError } from "./call.ts";
import type { ClientLink, DaemonContext } from "./context.ts";
import { callBudgetMs } from "./deadline.ts";
import { checkEffectGate } from "./effect-gate.ts";
import { forwardToBrowser, round } from "./forward.ts";
import type { AnyDaemonHandler, DaemonHandlers } from "./handlers/types.ts";
import { classifyOutcome, type EffectState, type OpRecord } from "./ledger.ts";
import { storedReply } from "./ledger-reply.ts";
import { afterBrowser, afterUploads, beforeBrowser } from "./transfer-link.ts";
import { parseParams, resolveMethod } from "./validate.ts";

export interface Reply {
  frame:
    | { id: string | number; result: unknown; meta: Record<string, unknown> }
    | { id: string | number; error: ErrorBody; meta: Record<string, unknown> };
  afterReply?: () => void;
}

type Outcome = { result: unknown } | { error: ErrorBody };

export class Dispatcher {
  /** Calls in flight by request id across all connections (cancel falls back to it). */
  private readonly byId = new Map<string, Call>();

  constructor(
    private readonly ctx: DaemonContext,
    private readonly handlers: DaemonHandlers,
  ) {}

  /** The in-flight call a `cancel {id}` means: on the caller's own connection first, else on any. */
  findCall(id: string | number, client: ClientLink): Call | undefined {
    const key = String(id);
    return client.calls.get(key) ?? this.byId.get(key);
  }

  /** Calls handled so far, and those in flight (idle-gc.ts collects between them). */
  handled = 0;
  inFlight = 0;

  async handle(frame: RequestFrame, client: ClientLink): Promise<Reply> {
    this.handled++;
    this.inFlight++;
    try {
      return await this.handleFrame(frame, client);
    } finally {
      this.inFlight--;
    }
  }

  private async handleFrame(frame: RequestFrame, client: ClientLink): Promise<Reply> {
    const receivedAt = performance.now();
    const traceId = frame.meta?.trace_id ?? mintTraceId();
    let call: Call | undefined;
    let outcome: Outcome;
    try {
      const { name, def } = resolveMethod(frame.method);
      const params = parseParams(name, frame.params);
      const budget = callBudgetMs(def, params, frame.meta?.timeout_ms ?? this.ctx.config.defaultTimeoutMs);
      call = new Call(frame.id, name, def, params, frame.meta ?? {}, traceId, receivedAt, budget);
      outcome = { result: await this.run(call, client) };
    } catch (err) {
      outcome = { error: toErrorBody(err) };
    }

    const effectState = call ? this.settleOp(call, outcome) : undefined;
    if (call) this.recordEvents(call, outcome);
    const timings = { ...call?.timings, daemon: round(performance.now() - receivedAt) };
    const meta: Record<string, unknown> = { trace_id: traceId, timings };
    if (call?.opId) meta.op_id = call.opId;
    if (call?.replayed) meta.replayed = true;
    if (effectState) meta.effect_state = effectState;
    this.ctx.log.info("call", {
      id: frame.id,
      method: frame.method,
      session: call?.sessionId,
      trace_id: traceId,
      client_pid: frame.meta?.client_pid,
      timings,
      outcome: "result" in outcome ? "ok" : outcome.error.code,
      ...("error" in outcome && { reason: outcome.error.data?.reason, message: outcome.error.message }),
    });
    return {
      frame: "result" in outcome ? { id: frame.id, result: outcome.result, meta } : { id: frame.id, error: outcome.error, meta },
      afterReply: call?.afterReply,
    };
  }

  private async run(call: Call, client: ClientLink): Promise<unknown> {
    const key = String(call.id);
    if (client.calls.has(key)) {
      throw new BskError("protocol_error", `request id ${key} is already in flight on this connection`);
    }
    const tracked = call.method !== "cancel";
    if (tracked) {
      client.calls.set(key, call);
      this.byId.set(key, call);
    }
    call.onProgress = ({ request_id: _, ...p }) => client.push({ event: CALL_PROGRESS, payload: p });
    let timer = setTimeout(() => {
      // The browser answers its own deadline, saying whether a script kept the page busy and what it did about that
      // (BROWSER_TIMEOUT_REPORT_MS): given that long and a margin, before the daemon answers without it.
      if (call.stage === "extension") timer = setTimeout(() => call.abort(timeoutError(call, call.stage)), BROWSER_TIMEOUT_FALLBACK_MS);
      else call.abort(timeoutError(call, call.stage));
    }, call.budgetMs);
    try {
      const work = this.stages(call, client);
      // If an abort wins the race, the stages still settle (they honour the signal); nobody awaits them. Once they
      // have, nothing of this call reads its staged uploads any more.
      work.catch(() => {}).finally(() => afterUploads(this.ctx, call));
      return await Promise.race([work, call.aborted]);
    } finally {
      clearTimeout(timer);
      if (tracked) {
        if (client.calls.get(key) === call) client.calls.delete(key);
        if (this.byId.get(key) === call) this.byId.delete(key);
      }
    }
  }

  private async stages(call: Call, client: ClientLink): Promise<unknown> {
    const effect = EFFECTS[call.method];
    if (effect === "BrowserMutation") {
      const t0 = performance.now();
      const recorded = await this.reserveOp(call);
      call.timings.ledger = round(performance.now() - t0);
      if (recorded) return replay(recorded);
    }
    if (call.def.owner === "daemon") {
      // Params were validated against call.method's schema: the one place a handler is called by a run-time name.
      const handler = (this.handlers as unknown as Partial<Record<string, AnyDaemonHandler>>)[call.method];
      if (!handler) throw new BskError("unsupported", `${call.method} is not implemented by this daemon`);
      return handler({
        call,
        ctx: this.ctx,
        client,
        params: call.params,
        findCall: (id) => this.findCall(id, client),
        step: (method, params) => this.step(call, client, method, params) as never,
      });
    }
    return this.sessionStages(call);
  }

  /** A method run as a step of `parent` (HandlerArgs.step): its own call on the same client, cut off with the parent. */
  private async step(
    parent: Call,
    client: ClientLink,
    method: MethodName,
    params: unknown,
  ): Promise<{ result: unknown; timings: Record<string, number> }> {
    if (parent.signal.aborted) throw parent.signal.reason;
    const frame: RequestFrame = {
      id: `${parent.id}.${method}`,
      method,
      params: params as Record<string, unknown>,
      meta: {
        trace_id: parent.traceId,
        timeout_ms: Math.max(1, parent.remainingMs()),
        ...(parent.meta.client_pid !== undefined && { client_pid: parent.meta.client_pid }),
      },
    };
    const cut = () => this.findCall(frame.id, client)?.abort(parent.signal.reason);
    parent.signal.addEventListener("abort", cut, { once: true });
    try {
      const { frame: reply } = await this.handle(frame, client);
      const timings = (reply.meta.timings ?? {}) as Record<string, number>;
      if ("error" in reply) throw BskError.from(reply.error);
      return { result: reply.result, timings };
    } finally {
      parent.signal.removeEventListener("abort", cut);
    }
  }

  /**
   * Ledger outcome of a mutation: recorded (off the reply path; the ledger fsyncs it in its next group commit) and
   * told to the caller as `meta.effect_state`, and as `error.data.effect_state` on an error.
   */
  private settleOp(call: Call, outcome: Outcome): EffectState | undefined {
    if (EFFECTS[call.method] !== "BrowserMutation") return undefined;
    let effect: EffectState;
    if (call.opReserved) {
      const opId = call.opId!;
      const classified = classifyOutcome(outcome, call.dispatched, call.answered);
      effect = classified.effect_state;
      const reply = storedReply(classified.reply, call.params, call.def.redact);
      // A result too big to keep loses its fields, not its approval.
      const approval = approvalOf(reply) ?? approvalOf(classified.reply);
      this.ctx.ledger
        .outcome(opId, { ...classified, ...(approval && { approval }), reply: withEffect(reply, effect) })
        .catch((err) => this.ctx.log.error("could not record an op outcome", { op_id: opId, error: err }));
    } else if (call.replayed && call.replayedEffect) effect = call.replayedEffect;
    else effect = "none"; // refused before it was reserved (op_id_reused, ledger unavailable): this call did nothing
    if ("error" in outcome) outcome.error = withEffect(outcome, effect).error;
    return effect;
  }

  /**
   * Event log stage: a call cut off after it reached the browser is an interrupt the agent can look up later; what the
   * person decided for an asked call that the ledger does not keep (TransientInput: hover, observe --probe-hover, …;
   * a mutation's approval is in its op) is kept as `call.approval`.
   */
  private recordEvents(call: Call, outcome: Outcome): void {
    if (!call.sessionId) return;
    if (EFFECTS[call.method] === "TransientInput") {
      const approval = approvalOf(outcome);
      if (approval) this.ctx.events.append(call.sessionId, "call.approval", { method: call.method, ...approval, trace_id: call.traceId });
    }
    if (!call.dispatched || call.answered || !("error" in outcome)) return;
    this.ctx.events.append(call.sessionId, "call.interrupted", {
      method: call.method,
      code: outcome.error.code,
      ...(outcome.error.data?.reason !== undefined && { reason: outcome.error.data.reason }),
      ...(call.opId && { op_id: call.opId }),
      trace_id: call.traceId,
    });
  }

  /**
   * Ledger stage: a fresh op is reserved; a known op_id yields its recorded outcome instead of running again. The
   * caller's op id is on disk before the op runs, so a retry after any crash finds it. One the daemon makes up (a
   * client that sent none, session start's navigate step) cannot be retried by, so its line is written while the op
   * runs: right after a window opened, the browser's own writes held that write for tens of ms.
   */
  private async reserveOp(call: Call): Promise<OpRecord | undefined> {
    const given = call.meta.op_id;
    call.opId = given ?? crypto.randomUUID();
    const op = {
      op_id: call.opId,
      method: call.method,
      params_hash: this.ctx.ledger.hashParams(call.method, call.params),
      session_id: typeof call.params.session_id === "string" ? call.params.session_id : undefined,
      trace_id: call.traceId,
    };
    // A caller's op id on its way to the extension: the line is synced while the extension prepares the call.
    const apart = given !== undefined && call.def.owner === "extension";
    const r = await this.ctx.ledger.reserve(op, { wait: given !== undefined, apart });
    if (r.kind === "fresh") {
      call.opReserved = true;
      if (r.durable) this.syncing(call, r.durable);
      return undefined;
    }
    call.replayed = true;
    const record = r.kind === "replay" ? r.record : await r.settled;
    call.replayedEffect = record.outcome?.effect_state ?? record.effect_state;
    return record;
  }

  /**
   * The op's line is being synced: when it is on disk the call learns so (forward.ts tells a held extension); when it
   * cannot be written the call ends with that error, and `effect_state: none` is the truth, as nothing was sent to
   * the page: an extension holds its input until told, and one that cannot hold is sent the call only after the sync.
   */
  private syncing(call: Call, durable: Promise<void>): void {
    const t0 = performance.now();
    const d = { promise: durable, done: false };
    call.durable = d;
    durable.then(
      () => {
        d.done = true;
        call.timings.ledger_sync = round(performance.now() - t0);
      },
      (err: unknown) => {
        call.opReserved = false;
        call.abort(err instanceof BskError ? err : BskError.from(toErrorBody(err)));
      },
    );
  }

  private async sessionStages(call: Call): Promise<unknown> {
    const sessionId = call.params.session_id;
    if (typeof sessionId !== "string") {
      throw new BskError("unsupported", `${call.method} has no session to route it to`);
    }
    const { sessions } = this.ctx;
    const rt = sessions.lookup(sessionId);
    call.sessionId = sessionId;
    checkEffectGate(call.method, rt.record.state, sessionId);
    sessions.beginCall(rt, call);
    const queuedAt = performance.now();
    call.stage = "queue";
    try {
      return await rt.queue.run(call.signal, async () => {
        call.timings.queue = round(performance.now() - queuedAt);
        // The person may have taken over while the call waited.
        checkEffectGate(call.method, rt.record.state, sessionId);
        beforeBrowser(this.ctx, call);
        return afterBrowser(
          this.ctx,
          call,
          await forwardToBrowser(this.ctx, call, rt),
          this.ctx.browsers.get(rt.record.browser_instance_id),
        );
      });
    } finally {
      call.timings.queue ??= round(performance.now() - queuedAt);
      sessions.endCall(rt, call);
    }
  }
}

/** The reply with `error.data.effect_state` set (kept when the extension declared it). */
function withEffect<R extends Outcome>(reply: R, effect: EffectState): R {
  if (!("error" in reply) || reply.error.data?.effect_state !== undefined) return reply;
  return { ...reply, error: { ...reply.error, data: { ...reply.error.data, effect_state: effect } } };
}

function replay(record: OpRecord): unknown {
  const reply = record.outcome?.reply;
  if (!reply) throw new BskError("protocol_error", `op ${record.op_id} has no recorded outcome`);
  if ("error" in reply) throw BskError.from(reply.error);
  return reply.result;
}
