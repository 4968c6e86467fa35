/**
 * The compact in-memory form of settled ops, one table per ledger segment (dropped with it): for each op id only where
 * its `reserved` and `outcome` lines are in that segment, its state, its session (interned) and when it was reserved,
 * in typed columns: about a fifth of a full record. Everything else (method, params hash, reply) is read back from
 * the segment on the rare retry or listing of such an op (ledger-file.ts).
 */
import type { OpState } from "./ledger.ts";

/** Where a line is in its segment. */
export interface Span {
  offset: number;
  length: number;
}

export interface SettledOp {
  reserved: Span;
  outcome: Span;
  reservedMs: number;
  session_id?: string;
  state: Exclude<OpState, "reserved">;
}

const STATES = ["executed", "not_executed", "unknown"] as const;
/** Offsets and lengths of both lines, then the session's index and the state. */
const U32_COLS = 6;

export class SettledOps {
  private readonly ids = new Map<string, number>();
  private u32 = new Uint32Array(U32_COLS * 64);
  private reservedMs = new Float64Array(64);
  private readonly sessionIds = new Map<string, number>();
  /** Index 0: no session. */
  private readonly sessionNames: (string | undefined)[] = [undefined];

  constructor(readonly seg: number) {}

  get size(): number {
    return this.ids.size;
  }

  has(opId: string): boolean {
    return this.ids.has(opId);
  }

  add(opId: string, op: SettledOp): void {
    const i = this.ids.size;
    if (i === this.reservedMs.length) this.grow();
    let s = 0;
    if (op.session_id !== undefined) {
      s = this.sessionIds.get(op.session_id) ?? this.sessionNames.push(op.session_id) - 1;
      this.sessionIds.set(op.session_id, s);
    }
    this.u32.set([op.reserved.offset, op.reserved.length, op.outcome.offset, op.outcome.length, s, STATES.indexOf(op.state)], i * U32_COLS);
    this.reservedMs[i] = op.reservedMs;
    this.ids.set(opId, i);
  }

  /** Where the op's two lines are, if this segment holds it. */
  lines(opId: string): { reserved: Span; outcome: Span } | undefined {
    const i = this.ids.get(opId);
    if (i === undefined) return undefined;
    const c = i * U32_COLS;
    return {
      reserved: { offset: this.u32[c]!, length: this.u32[c + 1]! },
      outcome: { offset: this.u32[c + 2]!, length: this.u32[c + 3]! },
    };
  }

  /** The op ids matching a listing's filters, with when each was reserved. */
  *matching(q: { session_id?: string; state?: OpState }): Generator<{ opId: string; reservedMs: number }> {
    let session: number | undefined;
    if (q.session_id !== undefined) {
      session = this.sessionIds.get(q.session_id);
      if (session === undefined) return;
    }
    const state = q.state === undefined ? undefined : STATES.indexOf(q.state as (typeof STATES)[number]);
    if (state === -1) return;
    for (const [opId, i] of this.ids) {
      const c = i * U32_COLS;
      if (session !== undefined && this.u32[c + 4] !== session) continue;
      if (state !== undefined && this.u32[c + 5] !== state) continue;
      yield { opId, reservedMs: this.reservedMs[i]! };
    }
  }

  private grow(): void {
    const u32 = new Uint32Array(this.u32.length * 2);
    u32.set(this.u32);
    this.u32 = u32;
    const ms = new Float64Array(this.reservedMs.length * 2);
    ms.set(this.reservedMs);
    this.reservedMs = ms;
  }
}
