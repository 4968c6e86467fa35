/**
 * The compact in-memory form of settled ops, one table per ledger segment (dropped with it), all in typed arrays: per
 * op a 64-bit hash of its op id, where its `reserved` and `outcome` lines are in the segment, its session (interned)
 * and state, and when it was reserved; 36 bytes instead of a full record's ~550. No op id string is kept: a row whose
 * hash matches is only a candidate, confirmed by reading its line back (ledger-file.ts), as is everything else about
 * the op (method, params hash, reply) on the rare retry or listing of it.
 *
 * A table grows (doubling, with an open-addressing index over the hashes) while its segment takes outcomes. Once the
 * segment is closed the ledger seals it: rows sorted by hash and searched by bisection, arrays cut to size, no index.
 * The ledger holds at most a day of ops or its size cap of them (ledger-file.ts), so what stays is those ops at 36
 * bytes each, nothing for growth.
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
/** Per row: offsets and lengths of both lines, then the session's index (high 24 bits) and the state (low 8). */
const U32_COLS = 5;
const FIRST_ROWS = 64;

export class SettledOps {
  private rows = 0;
  private hashes = new BigUint64Array(FIRST_ROWS);
  private u32 = new Uint32Array(U32_COLS * FIRST_ROWS);
  private reservedMs = new Float64Array(FIRST_ROWS);
  /** Open addressing over `hashes` while the table grows: row + 1, 0 for a free slot; at most half full. Sealed: none. */
  private slots: Int32Array | undefined = new Int32Array(2 * FIRST_ROWS);
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

  get sealed(): boolean {
    return this.slots === undefined;
  }

  /** Bytes its arrays take (what the ledger's memory bound counts). */
  get bytes(): number {
    return this.hashes.byteLength + this.u32.byteLength + this.reservedMs.byteLength + (this.slots?.byteLength ?? 0);
  }

  add(opId: string, op: SettledOp): void {
    // A late row for a sealed table (rare: an op whose outcome came just before its segment closed) opens it again.
    if (!this.slots) this.resize(Math.max(FIRST_ROWS, this.rows * 2));
    else if (this.rows === this.hashes.length) this.resize(this.rows * 2);
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
    this.u32[c + 4] = (s << 8) | STATES.indexOf(op.state);
    this.reservedMs[row] = op.reservedMs;
    this.hashes[row] = this.hashOf(opId);
    this.place(row);
  }

  /** Rows whose op id hashes like `opId`: the op itself if this segment holds it (confirm by its reserved line). */
  candidates(opId: string): number[] {
    const rows: number[] = [];
    const h = this.hashOf(opId);
    if (!this.slots) {
      let lo = 0;
      let hi = this.rows;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.hashes[mid]! < h) lo = mid + 1;
        else hi = mid;
      }
      for (let row = lo; row < this.rows && this.hashes[row] === h; row++) rows.push(row);
      return rows;
    }
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

  /** Each row matching a listing's filters, with when it was reserved and where (the order of reservation). */
  eachMatching(q: { session_id?: string; state?: OpState }, fn: (row: number, reservedMs: number, reservedOffset: number) => void): void {
    let session: number | undefined;
    if (q.session_id !== undefined) {
      session = this.sessionIds.get(q.session_id);
      if (session === undefined) return;
    }
    const state = q.state === undefined ? undefined : STATES.indexOf(q.state as (typeof STATES)[number]);
    if (state === -1) return;
    for (let row = 0; row < this.rows; row++) {
      const packed = this.u32[row * U32_COLS + 4]!;
      if (session !== undefined && packed >>> 8 !== session) continue;
      if (state !== undefined && (packed & 0xff) !== state) continue;
      fn(row, this.reservedMs[row]!, this.u32[row * U32_COLS]!);
    }
  }

  /** Its segment is closed: rows sorted by hash, arrays cut to size, the index dropped. Row numbers change. */
  seal(): void {
    if (!this.slots) return;
    const order = Array.from({ length: this.rows }, (_, i) => i);
    order.sort((a, b) => (this.hashes[a]! < this.hashes[b]! ? -1 : this.hashes[a]! > this.hashes[b]! ? 1 : a - b));
    const hashes = new BigUint64Array(this.rows);
    const u32 = new Uint32Array(this.rows * U32_COLS);
    const ms = new Float64Array(this.rows);
    order.forEach((from, to) => {
      hashes[to] = this.hashes[from]!;
      u32.set(this.u32.subarray(from * U32_COLS, (from + 1) * U32_COLS), to * U32_COLS);
      ms[to] = this.reservedMs[from]!;
    });
    this.hashes = hashes;
    this.u32 = u32;
    this.reservedMs = ms;
    this.slots = undefined;
  }

  private place(row: number): void {
    const slots = this.slots!;
    const mask = slots.length - 1;
    let i = Number(this.hashes[row]! & BigInt(mask));
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = row + 1;
  }

  private resize(n: number): void {
    const hashes = new BigUint64Array(n);
    hashes.set(this.hashes.subarray(0, this.rows));
    this.hashes = hashes;
    const u32 = new Uint32Array(n * U32_COLS);
    u32.set(this.u32.subarray(0, this.rows * U32_COLS));
    this.u32 = u32;
    const ms = new Float64Array(n);
    ms.set(this.reservedMs.subarray(0, this.rows));
    this.reservedMs = ms;
    this.slots = new Int32Array(n * 2);
    for (let row = 0; row < this.rows; row++) this.place(row);
  }
}

/** A 64-bit hash of an op id (wyhash). */
export function opIdHash(opId: string): bigint {
  return BigInt.asUintN(64, BigInt(Bun.hash.wyhash(opId)));
}
