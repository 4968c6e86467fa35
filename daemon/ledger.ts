/**
 * The operation ledger: every BrowserMutation is reserved under its op_id before it is dispatched and
 * gets an outcome afterwards, so a retried op_id replays the recorded outcome instead of acting twice.
 * Params are kept only as a hash (values typed into fields never appear in clear).
 *
 * `Ledger` is the seam: this in-memory implementation keeps the semantics; a persistent one appends
 * `reserved` and the outcome to an fsync'd JSONL file and turns `reserved` entries found at start-up
 * into `unknown`.
 */
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
  /** What the caller was told: replayed verbatim for a repeated op_id. */
  reply: { result: unknown } | { error: ErrorBody };
}

export interface OpRecord extends OpReservation {
  state: OpState;
  reserved_at: string;
  settled_at?: string;
  outcome?: OpOutcome;
}

export type ReserveResult =
  | { kind: "fresh" }
  /** The op already settled: reply with its recorded outcome. */
  | { kind: "replay"; record: OpRecord }
  /** The op is still running under another call: wait for its outcome, then replay it. */
  | { kind: "pending"; settled: Promise<OpRecord> };

export interface Ledger {
  /** Throws invalid_params (reason op_id_reused) when op_id was used for another method or params. */
  reserve(op: OpReservation): Promise<ReserveResult>;
  outcome(opId: string, outcome: OpOutcome): Promise<void>;
  get(opId: string): OpRecord | undefined;
}

export class MemoryLedger implements Ledger {
  private readonly records = new Map<string, OpRecord>();
  private readonly waiters = new Map<string, PromiseWithResolvers<OpRecord>>();

  constructor(private readonly maxRecords = 10_000) {}

  async reserve(op: OpReservation): Promise<ReserveResult> {
    const prior = this.records.get(op.op_id);
    if (prior) {
      if (prior.method !== op.method || prior.params_hash !== op.params_hash) {
        throw new BskError("invalid_params", `op id ${op.op_id} was already used for a different ${prior.method} call`, {
          data: { reason: "op_id_reused", op_id: op.op_id },
        });
      }
      if (prior.state !== "reserved") return { kind: "replay", record: prior };
      return { kind: "pending", settled: this.waiterFor(op.op_id).promise };
    }
    this.records.set(op.op_id, { ...op, state: "reserved", reserved_at: new Date().toISOString() });
    this.trim();
    return { kind: "fresh" };
  }

  async outcome(opId: string, outcome: OpOutcome): Promise<void> {
    const rec = this.records.get(opId);
    if (!rec || rec.state !== "reserved") return;
    rec.state = outcome.state;
    rec.outcome = outcome;
    rec.settled_at = new Date().toISOString();
    this.waiters.get(opId)?.resolve(rec);
    this.waiters.delete(opId);
  }

  get(opId: string): OpRecord | undefined {
    return this.records.get(opId);
  }

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
export function classifyOutcome(
  reply: { result: unknown } | { error: ErrorBody },
  dispatched: boolean,
  answered: boolean,
): OpOutcome {
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

/** A stable hash of a call's method and params (keys sorted), for comparing retries without keeping values. */
export function paramsHash(method: string, params: unknown): string {
  const h = new Bun.CryptoHasher("sha256");
  h.update(method);
  h.update("\n");
  h.update(canonicalJson(params));
  return h.digest("hex");
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}
