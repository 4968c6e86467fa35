/**
 * The operation ledger: every BrowserMutation is reserved under its op_id before it is dispatched and
 * gets an outcome afterwards, so a retried op_id replays the recorded outcome instead of acting twice.
 * Params are kept only as a hash (values typed into fields never appear in clear).
 *
 * `Ledger` is the seam: the daemon runs `FileLedger` (ledger-file.ts: fsync'd JSONL, `reserved` entries found at
 * start-up become `unknown`); this in-memory implementation keeps the same semantics for tests.
 */
import { createHmac } from "node:crypto";
import type { ApprovalRecord } from "../protocol/approval.ts";
import { BskError, type ErrorBody } from "../protocol/errors.ts";

export type OpState = "reserved" | "executed" | "not_executed" | "unknown";
export type EffectState = "committed" | "none" | "unknown";

export interface OpReservation {
  op_id: string;
  method: string;
  params_hash: string;
  session_id?: string;
  trace_id: string;
}

export interface OpOutcome {
  state: Exclude<OpState, "reserved">;
  effect_state: EffectState;
  /** The error code when the op did not (certainly) execute. */
  reason?: string;
  /** The person was asked first (an ask-first site, --confirm-writes): what they decided, taken from the reply. */
  approval?: ApprovalRecord;
  /** What the caller was told: replayed verbatim for a repeated op_id. */
  reply: { result: unknown } | { error: ErrorBody };
}

export interface OpRecord extends OpReservation {
  state: OpState;
  effect_state?: EffectState;
  /** Why it did not (certainly) execute: the error code, or daemon_restarted. */
  reason?: string;
  approval?: ApprovalRecord;
  reserved_at: string;
  settled_at?: string;
  /** The recorded outcome with its reply (present when a repeated op id is answered from it). */
  outcome?: OpOutcome;
}

export interface LedgerQuery {
  session_id?: string;
  state?: OpState;
  /** The newest `limit` matching ops. */
  limit?: number;
}

export type ReserveResult =
  /**
   * Claimed for this call. Reserved `apart`: `durable` settles once the line is on disk; it rejects (ledger_unavailable,
   * the op forgotten) when it cannot be written, and nothing may then reach the page.
   */
  | { kind: "fresh"; durable?: Promise<void> }
  /** The op already settled: reply with its recorded outcome. */
  | { kind: "replay"; record: OpRecord }
  /** The op is still running under another call: wait for its outcome, then replay it. */
  | { kind: "pending"; settled: Promise<OpRecord> };

/** A disk sync of the ledger file (fdatasync's shape): tests hold it up or fail it. */
export type DiskSync = (fd: number, done: (err: Error | null) => void) => void;

export interface ReserveOptions {
  wait?: boolean;
  apart?: boolean;
}

export interface Ledger {
  /** A keyed hash of a call's method and params: what a retry is compared by; never the values themselves. */
  hashParams(method: string, params: unknown): string;
  /**
   * Throws invalid_params (reason op_id_reused) when op_id was used for another method or params. A fresh op's line is
   * on disk when this resolves, unless `wait` is false: an op id the daemon made up, which no caller can retry by, is
   * kept for history only, and its line is written after the caller's turn; or unless `apart`: it resolves once the
   * op is claimed and its line on its way, and the result's `durable` tells when the line is on disk.
   */
  reserve(op: OpReservation, opts?: ReserveOptions): Promise<ReserveResult>;
  outcome(opId: string, outcome: OpOutcome): Promise<void>;
  get(opId: string): OpRecord | undefined;
  /** Remembered ops, oldest first (the newest `limit` of those matching). */
  list(q?: LedgerQuery): { ops: OpRecord[]; total: number };
  close(): Promise<void>;
}

export function opIdReused(opId: string, priorMethod: string): BskError {
  return new BskError("invalid_params", `op id ${opId} was already used for a different ${priorMethod} call`, {
    data: { reason: "op_id_reused", op_id: opId, effect_state: "none" },
  });
}

export class MemoryLedger implements Ledger {
  private readonly records = new Map<string, OpRecord>();
  private readonly waiters = new Map<string, PromiseWithResolvers<OpRecord>>();
  private readonly key = crypto.getRandomValues(new Uint8Array(32));

  constructor(private readonly maxRecords = 10_000) {}

  hashParams(method: string, params: unknown): string {
    return keyedParamsHash(this.key, method, params);
  }

  async reserve(op: OpReservation, opts?: ReserveOptions): Promise<ReserveResult> {
    const prior = this.records.get(op.op_id);
    if (prior) {
      if (prior.method !== op.method || prior.params_hash !== op.params_hash) throw opIdReused(op.op_id, prior.method);
      if (prior.state !== "reserved") return { kind: "replay", record: prior };
      return { kind: "pending", settled: this.waiterFor(op.op_id).promise };
    }
    this.records.set(op.op_id, { ...op, state: "reserved", reserved_at: new Date().toISOString() });
    this.trim();
    return opts?.apart ? { kind: "fresh", durable: Promise.resolve() } : { kind: "fresh" };
  }

  async outcome(opId: string, outcome: OpOutcome): Promise<void> {
    const rec = this.records.get(opId);
    if (rec?.state !== "reserved") return;
    rec.state = outcome.state;
    rec.effect_state = outcome.effect_state;
    if (outcome.reason !== undefined) rec.reason = outcome.reason;
    if (outcome.approval !== undefined) rec.approval = outcome.approval;
    rec.outcome = outcome;
    rec.settled_at = new Date().toISOString();
    this.waiters.get(opId)?.resolve(rec);
    this.waiters.delete(opId);
  }

  get(opId: string): OpRecord | undefined {
    return this.records.get(opId);
  }

  list(q: LedgerQuery = {}): { ops: OpRecord[]; total: number } {
    const ops = [...this.records.values()].filter(
      (r) => (q.session_id === undefined || r.session_id === q.session_id) && (q.state === undefined || r.state === q.state),
    );
    const limit = q.limit ?? ops.length;
    return { ops: ops.slice(Math.max(0, ops.length - limit)).map(({ outcome: _, ...r }) => r), total: ops.length };
  }

  async close(): Promise<void> {}

  private waiterFor(opId: string): PromiseWithResolvers<OpRecord> {
    let w = this.waiters.get(opId);
    if (!w) {
      w = Promise.withResolvers<OpRecord>();
      this.waiters.set(opId, w);
    }
    return w;
  }

  /** Forget the oldest settled records past the cap (a persistent ledger keeps them on disk). */
  private trim(): void {
    if (this.records.size <= this.maxRecords) return;
    for (const [id, rec] of this.records) {
      if (this.records.size <= this.maxRecords) break;
      if (rec.state !== "reserved") this.records.delete(id);
    }
  }
}

/** Codes that, when the extension answers them, leave open whether the mutation happened. */
const UNCERTAIN_CODES = new Set(["timeout", "cancelled", "cdp_failed", "protocol_error"]);

/**
 * What happened to a mutation, from how its call ended.
 * `dispatched`: it reached the extension; `answered`: the extension replied (result or error).
 */
export function classifyOutcome(reply: { result: unknown } | { error: ErrorBody }, dispatched: boolean, answered: boolean): OpOutcome {
  if ("result" in reply) return { state: "executed", effect_state: "committed", reply };
  const { error } = reply;
  const declared = error.data?.effect_state;
  if (declared === "committed") return { state: "executed", effect_state: "committed", reply };
  if (!dispatched || declared === "none") return { state: "not_executed", effect_state: "none", reason: error.code, reply };
  if (answered && declared !== "unknown" && !UNCERTAIN_CODES.has(error.code)) {
    return { state: "not_executed", effect_state: "none", reason: error.code, reply };
  }
  return { state: "unknown", effect_state: "unknown", reason: error.code, reply };
}

/** HMAC-SHA256 under `key` of the method and its params in canonical JSON. */
export function keyedParamsHash(key: Uint8Array, method: string, params: unknown): string {
  return createHmac("sha256", key).update(method).update("\n").update(canonicalJson(params)).digest("hex");
}

/** JSON with object keys sorted and undefined values left out: equal params give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}
