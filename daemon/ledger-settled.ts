/**
 * The compact in-memory form of settled ops, one table per ledger segment (dropped with it), all in typed arrays: per
 * op a 64-bit hash of its op id, where its `reserved` and `outcome` lines are in the segment, its session (interned),
 * its state and when it was reserved; about 60 bytes instead of a full record's ~550. No op id string is kept: a
 * row whose hash matches is only a candidate, confirmed by reading its line back (ledger-file.ts), as is everything
 * else about the op (method, params hash, reply) on the rare retry or listing of it.
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
/** Per row: offsets and lengths of both lines, then the session's index and the state. */
const U32_COLS = 6;

export class SettledOps {
  private rows = 0;
  private hashes = new BigUint64Array(64);
  private u32 = new Uint32Array(U32_COLS * 64);
  private reservedMs = new Float64Array(64);
  /** Open addressing over `hashes`: row + 1, 0 for a free slot; at most half full. */
  private slots = new Int32Array(128);
  private readonly sessionIds = new Map<string, number>();
  /** Index 0: no session. */
  private readonly sessionNames: (string | undefined)[] = [undefined];

  constructor(
    readonly seg: number,
    private readonly hashOf: (opId: string) => bigint = opIdHash,
  ) {}

  get size(): number {
    return this.rows;
  }

  add(opId: string, op: SettledOp): void {
    if (this.rows === this.hashes.length) this.grow();
    const row = this.rows++;
    let s = 0;
    if (op.session_id !== undefined) {
      s = this.sessionIds.get(op.session_id) ?? this.sessionNames.push(op.session_id) - 1;
      this.sessionIds.set(op.session_id, s);
    }
    const c = row * U32_COLS;
    this.u32[c] = op.reserved.offset;
    this.u32[c + 1] = op.reserved.length;
    this.u32[c + 2] = op.outcome.offset;
    this.u32[c + 3] = op.outcome.length;
    this.u32[c + 4] = s;
    this.u32[c + 5] = STATES.indexOf(op.state);
    this.reservedMs[row] = op.reservedMs;
    this.hashes[row] = this.hashOf(opId);
    this.place(row);
  }

  /** Rows whose op id hashes like `opId`: the op itself if this segment holds it (confirm by its reserved line). */
  candidates(opId: string): number[] {
    const rows: number[] = [];
    const h = this.hashOf(opId);
    const mask = this.slots.length - 1;
    for (let i = Number(h & BigInt(mask)); this.slots[i] !== 0; i = (i + 1) & mask) {
      const row = this.slots[i]! - 1;
      if (this.hashes[row] === h) rows.push(row);
    }
    return rows;
  }

  /** Where the row's two lines are. */
  lines(row: number): { reserved: Span; outcome: Span } {
    const c = row * U32_COLS;
    return {
      reserved: { offset: this.u32[c]!, length: this.u32[c + 1]! },
      outcome: { offset: this.u32[c + 2]!, length: this.u32[c + 3]! },
    };
  }

  /** Each row matching a listing's filters, with when it was reserved. */
  eachMatching(q: { session_id?: string; state?: OpState }, fn: (row: number, reservedMs: number) => void): void {
    let session: number | undefined;
    if (q.session_id !== undefined) {
      session = this.sessionIds.get(q.session_id);
      if (session === undefined) return;
    }
    const state = q.state === undefined ? undefined : STATES.indexOf(q.state as (typeof STATES)[number]);
    if (state === -1) return;
    for (let row = 0; row < this.rows; row++) {
      const c = row * U32_COLS;
      if (session !== undefined && this.u32[c + 4] !== session) continue;
      if (state !== undefined && this.u32[c + 5] !== state) continue;
      fn(row, this.reservedMs[row]!);
    }
  }

  private place(row: number): void {
    const mask = this.slots.length - 1;
    let i = Number(this.hashes[row]! & BigInt(mask));
    while (this.slots[i] !== 0) i = (i + 1) & mask;
    this.slots[i] = row + 1;
  }

  private grow(): void {
    const n = this.hashes.length * 2;
    const hashes = new BigUint64Array(n);
    hashes.set(this.hashes);
    this.hashes = hashes;
    const u32 = new Uint32Array(n * U32_COLS);
    u32.set(this.u32);
    this.u32 = u32;
    const ms = new Float64Array(n);
    ms.set(this.reservedMs);
    this.reservedMs = ms;
    this.slots = new Int32Array(n * 2);
    for (let row = 0; row < this.rows; row++) this.place(row);
  }
}

/** A 64-bit hash of an op id (wyhash). */
export function opIdHash(opId: string): bigint {
  return BigInt.asUintN(64, BigInt(Bun.hash.wyhash(opId)));
}
