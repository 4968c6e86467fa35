/**
 * The operation ledger on disk: `$BSK_HOME/ledger/ops-NNNNNN.jsonl` (0600), one JSON object per line, appended and
 * fdatasync'd. A `reserved` line is durable before the op reaches the page: before it is dispatched, or, for an
 * extension that holds input (protocol/frames.ts HOLD_INPUT), before that input goes out while the extension prepares
 * the call (one whose id the daemon made up, which nobody can retry by, is written while it runs). Its outcome line
 * follows (group-committed, off the reply path). At start-up every segment is read back: ops still `reserved` were in
 * flight when the daemon died and become `unknown` (reason daemon_restarted) — never run again.
 *
 * Params are kept only as an HMAC keyed with `ledger/key` (32 random bytes, 0600, made once per home), so a weak
 * value typed into a field cannot be guessed offline from the ledger. A lost key fails closed: old op ids no longer
 * match their params and a retry is refused (op_id_reused), never run twice.
 *
 * Bounds: a segment is closed at `segmentBytes` (8 MiB). Closed segments are deleted when their last entry is older
 * than `maxAgeMs` (30 days), or — oldest first — while the ledger exceeds `maxTotalBytes` (32 MiB), but never before
 * their last entry is `minKeepMs` (24 h) old. So an op id is remembered at least 24 h after its outcome (longer than
 * any call's deadline, 24 h at most), usually 30 days. Only the index (no replies) is held in memory; a replay reads
 * its outcome line back from disk.
 *
 * Memory: the index holds a full record only for ops in flight and the newest `fullRecords` (256) settled ones. An
 * older settled op is kept compact (ledger-settled.ts: a hash of its op id, where its two lines are, its state,
 * session, time), and its record is read back from its segment when a retry or `bsk ops` needs it. An op whose lines
 * lie in two segments (in flight at a rotation) or whose reserved line was never written stays full. A compact record
 * that cannot be read back fails closed: the retry is refused (ledger_unavailable), never run.
 */
import {
  closeSync,
  existsSync,
  fdatasync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { BskError, type ErrorBody } from "../protocol/errors.ts";
import { ensurePrivateDir } from "../shared/fs-util.ts";
import { fsyncDir } from "../shared/fsync-dir.ts";
import { SettledOps, type Span } from "./ledger-settled.ts";
import {
  type DiskSync,
  keyedParamsHash,
  opIdReused,
  type Ledger,
  type LedgerQuery,
  type OpOutcome,
  type OpRecord,
  type OpReservation,
  type ReserveOptions,
  type ReserveResult,
} from "./ledger.ts";

export interface FileLedgerOptions {
  segmentBytes?: number;
  maxTotalBytes?: number;
  minKeepMs?: number;
  maxAgeMs?: number;
  /** Settled ops kept as full records (the newest); older ones are kept compact and read back from disk. */
  fullRecords?: number;
  now?: () => number;
  onWarn?: (msg: string, fields: Record<string, unknown>) => void;
  /** The disk sync of a written batch (default fdatasync); tests hold it up or fail it (fault injection). */
  sync?: DiskSync;
  /** The compact form's op id hash (default wyhash); tests make op ids collide (fault injection). */
  opIdHash?: (opId: string) => bigint;
  /** The write of a batch (default writeSync); tests make it fail part-way, as a full disk does (fault injection). */
  write?: (fd: number, bytes: Uint8Array, from: number) => number;
}

export const LEDGER_DEFAULTS = {
  segmentBytes: 8 * 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
  minKeepMs: 24 * 3600_000,
  maxAgeMs: 30 * 24 * 3600_000,
  fullRecords: 256,
};

const SEGMENT = /^ops-(\d{6})\.jsonl$/;

/** A line's place in the whole ledger: segments in order, offsets within them. */
const position = (seg: number, offset: number) => seg * 2 ** 32 + offset;
const KEY_BYTES = 32;

interface Where {
  seg: number;
  offset: number;
  length: number;
}

interface Entry extends OpRecord {
  /** Segment of the op's latest line: the op is forgotten with that segment. */
  seg: number;
  /** Where its reserved line is, once written: what a compact form reads the op back from. */
  reservedAt?: Where;
  /** Where its outcome line is, to read the recorded reply back for a replay. */
  outcomeAt?: Where;
  /** The reply until its outcome line is on disk (a retry may come before that). */
  reply?: OpOutcome["reply"];
}

interface Segment {
  n: number;
  bytes: number;
  /** ms of its newest line */
  lastAt: number;
}

interface Pending {
  /** Serialized when written (off the caller's path). */
  line: Line;
  done: PromiseWithResolvers<Where>;
}

type Line =
  | { e: "reserved"; op_id: string; method: string; params_hash: string; session_id?: string; trace_id: string; at: string }
  | {
      e: "outcome";
      op_id: string;
      state: OpOutcome["state"];
      effect_state: OpOutcome["effect_state"];
      reason?: string;
      approval?: OpOutcome["approval"];
      reply: OpOutcome["reply"];
      at: string;
    };

export class FileLedger implements Ledger {
  /** Full records: ops in flight, the newest settled ones, and those that cannot be kept compact. */
  private readonly entries = new Map<string, Entry>();
  /** Older settled ops, compact, per segment (gone with it). */
  private readonly settled = new Map<number, SettledOps>();
  /** Settled ops still held in full, oldest first: beyond `fullRecords` they are made compact. */
  private readonly recent = new Set<string>();
  /** While a listing reads records back: each segment's file, opened once. */
  private listing: Map<number, number> | undefined;
  private readonly waiters = new Map<string, PromiseWithResolvers<OpRecord>>();
  private readonly segments: Segment[] = [];
  private readonly key: Buffer;
  private readonly opts: Required<Omit<FileLedgerOptions, "onWarn" | "sync" | "opIdHash" | "write">> &
    Pick<FileLedgerOptions, "onWarn" | "sync" | "opIdHash" | "write">;
  private fd = -1;
  private queue: Pending[] = [];
  /** Outcome lines whose write failed (a full disk), by op id: written again ahead of the next line. */
  private readonly unwritten = new Map<string, Extract<Line, { e: "outcome" }>>();
  /** The last batch's write failed part-way: the file may end inside a line. */
  private torn = false;
  private writing = false;
  /** The running group commit, if any. */
  private drained: Promise<void> | undefined;
  private closed = false;

  /** Opens (creating if needed) the ledger in `dir`; ops found reserved become unknown. */
  static async open(dir: string, opts: FileLedgerOptions = {}): Promise<FileLedger> {
    const ledger = new FileLedger(dir, opts);
    await ledger.recover();
    return ledger;
  }

  private constructor(
    private readonly dir: string,
    opts: FileLedgerOptions,
  ) {
    this.opts = { ...LEDGER_DEFAULTS, now: Date.now, ...opts };
    ensurePrivateDir(dir);
    this.key = loadKey(`${dir}/key`);
    this.load();
  }

  hashParams(method: string, params: unknown): string {
    return keyedParamsHash(this.key, method, params);
  }

  async reserve(op: OpReservation, opts: ReserveOptions = {}): Promise<ReserveResult> {
    const prior = this.find(op.op_id);
    if (prior) {
      if (prior.method !== op.method || prior.params_hash !== op.params_hash) throw opIdReused(op.op_id, prior.method);
      if (prior.state === "reserved") return { kind: "pending", settled: this.waiterFor(op.op_id).promise };
      return { kind: "replay", record: this.withReply(prior) };
    }
    const at = new Date(this.opts.now()).toISOString();
    const entry: Entry = { ...op, state: "reserved", reserved_at: at, seg: 0 };
    // Claimed before the write, so a second call with the same op id waits for this one instead of racing it.
    this.entries.set(op.op_id, entry);
    const line: Line = { e: "reserved", ...op, at };
    if (opts.wait === false) {
      // Kept for history (ledger list, the outcome's lookup): nobody holds this id to retry by before the reply. Written
      // after the caller's turn, once the op is on its way.
      this.append(line, true).then(
        (where) => {
          entry.reservedAt = where;
          if (entry.outcomeAt === undefined) entry.seg = where.seg;
        },
        (err: unknown) => this.opts.onWarn?.("a ledger line could not be written", { op_id: op.op_id, error: String(err) }),
      );
      return { kind: "fresh" };
    }
    const written = this.append(line).then(
      (where) => {
        entry.reservedAt = where;
        if (entry.outcomeAt === undefined) entry.seg = where.seg;
      },
      (err: unknown) => {
        throw this.unrecorded(op.op_id, err);
      },
    );
    if (opts.apart) {
      written.catch(() => undefined);
      return { kind: "fresh", durable: written };
    }
    await written;
    return { kind: "fresh" };
  }

  /** A reserved line that could not be written: the op is forgotten (a retry runs it), and it must not run now. */
  private unrecorded(opId: string, err: unknown): BskError {
    this.entries.delete(opId);
    this.waiters.get(opId)?.reject(err);
    this.waiters.delete(opId);
    return new BskError("unsupported", `the operation ledger could not record op ${opId}, so it was not run`, {
      hint: "Check the disk under $BSK_HOME/ledger (space, permissions), then retry.",
      data: { reason: "ledger_unavailable", op_id: opId, effect_state: "none", error: err instanceof Error ? err.message : String(err) },
    });
  }

  async outcome(opId: string, outcome: OpOutcome): Promise<void> {
    const entry = this.entries.get(opId);
    if (entry?.state !== "reserved") return;
    const at = new Date(this.opts.now()).toISOString();
    entry.state = outcome.state;
    entry.effect_state = outcome.effect_state;
    if (outcome.reason !== undefined) entry.reason = outcome.reason;
    if (outcome.approval !== undefined) entry.approval = outcome.approval;
    entry.settled_at = at;
    entry.reply = outcome.reply;
    // Waiters replay what the first caller was told.
    this.waiters.get(opId)?.resolve({ ...entry, outcome });
    this.waiters.delete(opId);
    const line: Line = { e: "outcome", op_id: opId, state: outcome.state, effect_state: outcome.effect_state, reply: outcome.reply, at };
    if (outcome.reason !== undefined) line.reason = outcome.reason;
    if (outcome.approval !== undefined) line.approval = outcome.approval;
    // Written after the reply went out (the index above already answers a repeated op id).
    await this.writeOutcome(line);
  }

  /**
   * Writes an outcome line. One the disk refused (full for a while) is kept with its reply in memory and written ahead
   * of the next line the ledger writes, so that a restart after the disk came back reads the outcome the caller was
   * told, not `unknown`.
   */
  private async writeOutcome(line: Extract<Line, { e: "outcome" }>): Promise<void> {
    let where: Where;
    try {
      where = await this.append(line, true);
    } catch (err) {
      if (!this.closed) this.unwritten.set(line.op_id, line);
      throw err;
    }
    const entry = this.entries.get(line.op_id);
    if (!entry) return;
    entry.seg = where.seg;
    entry.outcomeAt = where;
    delete entry.reply;
    this.settle(line.op_id);
  }

  /** Outcome lines a failed write left behind go out first, in the batch of the line about to be written. */
  private retryUnwritten(): void {
    const lines = [...this.unwritten.values()];
    this.unwritten.clear();
    for (const line of lines)
      this.writeOutcome(line).catch((err: unknown) =>
        this.opts.onWarn?.("an outcome line could not be written again", { op_id: line.op_id, error: String(err) }),
      );
  }

  get(opId: string): OpRecord | undefined {
    const e = this.find(opId);
    return e && publicRecord(e);
  }

  list(q: LedgerQuery = {}): { ops: OpRecord[]; total: number } {
    const matching: ({ ms: number; at: number; entry: Entry } | { ms: number; at: number; table: SettledOps; row: number })[] = [];
    // In the same millisecond, where their reserved lines are says which came first (a sealed table's rows are in hash
    // order); an op whose line is not written yet is the newest.
    for (const table of this.settled.values())
      table.eachMatching(q, (row, ms, offset) => matching.push({ ms, at: position(table.seg, offset), table, row }));
    for (const e of this.entries.values()) {
      if (q.session_id !== undefined && e.session_id !== q.session_id) continue;
      if (q.state !== undefined && e.state !== q.state) continue;
      const at = e.reservedAt ? position(e.reservedAt.seg, e.reservedAt.offset) : Number.POSITIVE_INFINITY;
      matching.push({ ms: Date.parse(e.reserved_at), at, entry: e });
    }
    // Two unwritten ops (Infinity − Infinity is NaN) compare equal: the stable sort keeps them in reservation order.
    matching.sort((a, b) => a.ms - b.ms || a.at - b.at);
    const limit = q.limit ?? matching.length;
    const newest = matching.slice(Math.max(0, matching.length - limit));
    this.listing = new Map();
    try {
      return { ops: newest.map((m) => publicRecord("entry" in m ? m.entry : this.readBack(m.table, m.row))), total: matching.length };
    } finally {
      for (const fd of this.listing.values()) closeSync(fd);
      this.listing = undefined;
    }
  }

  /** How many ops the index holds in full and compact (what bounds its memory). */
  held(): { full: number; compact: number } {
    let compact = 0;
    for (const table of this.settled.values()) compact += table.size;
    return { full: this.entries.size, compact };
  }

  /** The bytes the compact tables take: 36 per op once their segment is sealed. */
  compactBytes(): number {
    let bytes = 0;
    for (const table of this.settled.values()) bytes += table.bytes;
    return bytes;
  }

  /** Waits for queued lines to reach the disk, then closes the file. */
  async close(): Promise<void> {
    if (this.unwritten.size && !this.writing) {
      this.retryUnwritten();
      await this.drained;
    }
    while (this.writing && this.drained) await this.drained;
    this.closed = true;
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  // ------------------------------------------------------------------ start-up

  private load(): void {
    const names = readdirSync(this.dir)
      .map((name) => SEGMENT.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    for (const n of names) this.loadSegment(n);
    const newest = names.at(-1);
    for (const table of this.settled.values()) if (table.seg !== newest) table.seal();
    this.prune();
  }

  private loadSegment(n: number): void {
    const path = this.segmentPath(n);
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (err) {
      throw new BskError("unsupported", `the ledger segment ${path} cannot be read: ${(err as Error).message}`, {
        hint: "Move it out of the ledger folder and restart the daemon; the ops it recorded are then forgotten (retries of them run again).",
        data: { reason: "ledger_unavailable", path },
      });
    }
    const seg: Segment = { n, bytes: buf.length, lastAt: statSync(path).mtimeMs };
    this.segments.push(seg);
    let offset = 0;
    let bad = 0;
    while (offset < buf.length) {
      let nl = buf.indexOf(10, offset);
      if (nl < 0) nl = buf.length;
      const length = nl - offset;
      const text = buf.toString("utf8", offset, nl);
      if (text.trim()) {
        const line = parseLine(text);
        if (line) this.replayLine(line, { seg: n, offset, length });
        else bad++;
      }
      offset = nl + 1;
    }
    // A torn last line (the daemon died mid-write) is skipped; anything else unreadable is reported.
    if (bad) this.opts.onWarn?.("ledger lines could not be read", { segment: path, lines: bad });
  }

  private replayLine(line: Line, where: Where): void {
    if (line.e === "reserved") {
      const { e: _, at, ...op } = line;
      if (!this.known(op.op_id)) {
        this.entries.set(op.op_id, { ...op, state: "reserved", reserved_at: at, seg: where.seg, reservedAt: where });
      }
      return;
    }
    const entry = this.entries.get(line.op_id);
    if (entry?.state !== "reserved") return;
    entry.state = line.state;
    entry.effect_state = line.effect_state;
    if (line.reason !== undefined) entry.reason = line.reason;
    if (line.approval !== undefined) entry.approval = line.approval;
    entry.settled_at = line.at;
    entry.seg = where.seg;
    entry.outcomeAt = where;
    this.settle(line.op_id);
  }

  /** Ops that were in flight when the daemon stopped: their effect is unknown and they never run again. */
  private async recover(): Promise<void> {
    const stranded = [...this.entries.values()].filter((e) => e.state === "reserved");
    await Promise.all(
      stranded.map((e) => {
        const error: ErrorBody = {
          code: "protocol_error",
          message: `the daemon stopped while ${e.method} (op ${e.op_id}) was in flight; it may or may not have run`,
          data: { reason: "daemon_restarted", effect_state: "unknown", op_id: e.op_id },
        };
        return this.outcome(e.op_id, { state: "unknown", effect_state: "unknown", reason: "daemon_restarted", reply: { error } });
      }),
    );
  }

  // ------------------------------------------------------------------ writing

  /**
   * Queue a line; resolves once it (and everything queued with it) is written and fdatasync'd. `later`: the write
   * starts on the next turn of the event loop, after what the caller is about to send.
   */
  private append(line: Line, later = false): Promise<Where> {
    if (this.closed) return Promise.reject(new Error("the ledger is closed"));
    if (this.unwritten.size) this.retryUnwritten();
    const done = Promise.withResolvers<Where>();
    this.queue.push({ line, done });
    if (!this.writing) {
      this.writing = true;
      this.drained = later ? new Promise<void>((resolve) => setImmediate(() => resolve(this.drain()))) : this.drain();
    }
    return done.promise;
  }

  /** Group commit: whatever queued while the last fdatasync ran goes out in one write and one fdatasync. */
  private async drain(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0);
        try {
          const seg = this.current();
          // A batch that failed part-way (a full disk) left a piece of a line: the next one starts on a line of its own.
          if (this.torn) {
            this.freshLine(seg);
            this.torn = false;
          }
          const wheres: Where[] = [];
          let offset = seg.bytes;
          const parts = batch.map((p) => {
            const bytes = Buffer.from(`${JSON.stringify(p.line)}\n`);
            wheres.push({ seg: seg.n, offset, length: bytes.length - 1 });
            offset += bytes.length;
            return bytes;
          });
          const bytes = Buffer.concat(parts);
          const write = this.opts.write ?? writeSync;
          let written = 0;
          try {
            while (written < bytes.length) written += write(this.fd, bytes, written);
          } finally {
            // What reached the file counts, whole lines or not: every later line's offset is read back by it. A write
            // that failed part-way may not say how much it wrote: the file's size does.
            if (written === bytes.length) seg.bytes += written;
            else {
              this.torn = true;
              seg.bytes = fstatSync(this.fd).size;
            }
          }
          seg.lastAt = this.opts.now();
          const sync = this.opts.sync ?? fdatasync;
          await new Promise<void>((resolve, reject) => sync(this.fd, (err) => (err ? reject(err) : resolve())));
          batch.forEach((p, i) => p.done.resolve(wheres[i]!));
        } catch (err) {
          for (const p of batch) p.done.reject(err);
        }
      }
    } finally {
      // Synchronously after the last look at the queue, so a line queued from here on starts a new drain.
      this.writing = false;
      this.drained = undefined;
    }
  }

  /** A segment that ends inside a line (a crash or a full disk mid-write) gets a newline, so the next line is whole. */
  private freshLine(seg: Segment): void {
    if (seg.bytes > 0 && !endsWithNewline(this.fd, seg.bytes)) seg.bytes += writeSync(this.fd, "\n");
  }

  /** The segment being written, opened (or rotated) as needed. */
  private current(): Segment {
    let seg = this.segments.at(-1);
    if (seg && this.fd >= 0 && seg.bytes < this.opts.segmentBytes) return seg;
    if (seg && this.fd < 0 && seg.bytes < this.opts.segmentBytes) {
      this.fd = openSync(this.segmentPath(seg.n), "a+", 0o600);
      // The daemon may have died mid-line: start on a fresh one.
      this.freshLine(seg);
      return seg;
    }
    if (this.fd >= 0) closeSync(this.fd);
    const n = (seg?.n ?? 0) + 1;
    this.fd = openSync(this.segmentPath(n), "a+", 0o600);
    // The new file's name must survive a crash too.
    fsyncDir(this.dir);
    seg = { n, bytes: fstatSync(this.fd).size, lastAt: this.opts.now() };
    this.segments.push(seg);
    this.prune();
    return seg;
  }

  /** Drop old closed segments (see the bounds above) and the ops whose latest line they hold. */
  private prune(): void {
    const now = this.opts.now();
    let total = this.segments.reduce((s, x) => s + x.bytes, 0);
    while (this.segments.length > 1) {
      const oldest = this.segments[0]!;
      const age = now - oldest.lastAt;
      const tooOld = age > this.opts.maxAgeMs;
      const tooBig = total > this.opts.maxTotalBytes && age > this.opts.minKeepMs;
      if (!tooOld && !tooBig) break;
      this.segments.shift();
      total -= oldest.bytes;
      rmSync(this.segmentPath(oldest.n), { force: true });
      this.settled.delete(oldest.n);
      for (const [id, e] of this.entries) if (e.seg === oldest.n && e.state !== "reserved") this.entries.delete(id);
    }
  }

  // ------------------------------------------------------------------ compact form

  /** A settled op joins the newest full records; the oldest of them beyond `fullRecords` is made compact. */
  private settle(opId: string): void {
    this.recent.delete(opId);
    this.recent.add(opId);
    for (const id of this.recent) {
      if (this.recent.size <= this.opts.fullRecords) break;
      this.recent.delete(id);
      this.compact(id);
    }
  }

  private compact(opId: string): void {
    const e = this.entries.get(opId);
    if (!e || e.state === "reserved" || !e.reservedAt || !e.outcomeAt || e.reservedAt.seg !== e.outcomeAt.seg) return;
    const seg = e.outcomeAt.seg;
    let table = this.settled.get(seg);
    if (!table) {
      // Its segment was dropped meanwhile: so is the op.
      if (!this.segments.some((s) => s.n === seg)) return;
      table = new SettledOps(seg, this.opts.opIdHash);
      this.settled.set(seg, table);
      // The ops of an older segment are in by now (the newest settled are compacted in order): it takes no more.
      for (const older of this.settled.values()) if (older.seg < seg) older.seal();
    }
    table.add(opId, {
      reserved: e.reservedAt,
      outcome: e.outcomeAt,
      reservedMs: Date.parse(e.reserved_at),
      session_id: e.session_id,
      state: e.state,
    });
    this.entries.delete(opId);
  }

  /** The op's full record: held, or read back from its segment (fails closed when it cannot be). */
  private find(opId: string): Entry | undefined {
    const held = this.entries.get(opId);
    if (held) return held;
    for (const table of this.settled.values()) {
      for (const row of table.candidates(opId)) {
        const entry = this.readBack(table, row, opId);
        // Another op id with the same hash: keep looking.
        if (entry.op_id === opId) return entry;
      }
    }
    return undefined;
  }

  /** Whether the op id is remembered; one that cannot be read back counts as remembered (it must not run again). */
  private known(opId: string): boolean {
    try {
      return this.find(opId) !== undefined;
    } catch {
      return true;
    }
  }

  /** A compact op's record, read back from its segment; refused when its lines there are not a ledger op's. */
  private readBack(table: SettledOps, row: number, opId?: string): Entry {
    const at = table.lines(row);
    const path = this.segmentPath(table.seg);
    let lines: (Line | undefined)[] = [];
    try {
      lines = this.readLines(table.seg, [at.reserved, at.outcome]);
    } catch (err) {
      this.opts.onWarn?.("a ledger segment could not be read back", { segment: path, error: String(err) });
    }
    const [r, o] = lines;
    if (r?.e !== "reserved" || o?.e !== "outcome" || r.op_id !== o.op_id) {
      const what = opId === undefined ? "an op" : `op ${opId}`;
      throw new BskError("unsupported", `the operation ledger could not read back ${what} from ${path}; nothing was run`, {
        hint: "The ledger segment was changed or removed. Check the page, then act again under a new op id if still needed.",
        data: { reason: "ledger_unavailable", ...(opId !== undefined && { op_id: opId }), effect_state: "none", path },
      });
    }
    const { e: _r, at: reservedAt, ...op } = r;
    const entry: Entry = { ...op, state: o.state, effect_state: o.effect_state, reserved_at: reservedAt, seg: table.seg };
    if (o.reason !== undefined) entry.reason = o.reason;
    if (o.approval !== undefined) entry.approval = o.approval;
    entry.settled_at = o.at;
    entry.reservedAt = { seg: table.seg, ...at.reserved };
    entry.outcomeAt = { seg: table.seg, ...at.outcome };
    entry.reply = o.reply;
    return entry;
  }

  // ------------------------------------------------------------------ reading back

  private withReply(entry: Entry): OpRecord {
    const rec = publicRecord(entry);
    const reply = entry.reply ?? (entry.outcomeAt ? this.readReply(entry.outcomeAt) : undefined);
    if (reply && entry.state !== "reserved") {
      rec.outcome = {
        state: entry.state,
        effect_state: entry.effect_state!,
        ...(entry.reason !== undefined && { reason: entry.reason }),
        ...(entry.approval !== undefined && { approval: entry.approval }),
        reply,
      };
    }
    return rec;
  }

  private readReply(where: Where): OpOutcome["reply"] | undefined {
    let line: Line | undefined;
    try {
      [line] = this.readLines(where.seg, [where]);
    } catch {
      return undefined;
    }
    return line?.e === "outcome" ? line.reply : undefined;
  }

  /** Lines of one segment read back (undefined: not a ledger line); throws when the segment cannot be read. */
  private readLines(seg: number, spans: Span[]): (Line | undefined)[] {
    const kept = this.listing?.get(seg);
    const fd = kept ?? openSync(this.segmentPath(seg), "r");
    try {
      return spans.map(({ offset, length }) => {
        const buf = Buffer.alloc(length);
        const n = readSync(fd, buf, 0, length, offset);
        return parseLine(buf.toString("utf8", 0, n));
      });
    } finally {
      if (kept === undefined && this.listing) this.listing.set(seg, fd);
      else if (kept === undefined) closeSync(fd);
    }
  }

  private waiterFor(opId: string): PromiseWithResolvers<OpRecord> {
    let w = this.waiters.get(opId);
    if (!w) {
      w = Promise.withResolvers<OpRecord>();
      w.promise.catch(() => {});
      this.waiters.set(opId, w);
    }
    return w;
  }

  private segmentPath(n: number): string {
    return `${this.dir}/ops-${String(n).padStart(6, "0")}.jsonl`;
  }
}

function publicRecord(e: Entry): OpRecord {
  const { seg: _s, reservedAt: _a, outcomeAt: _o, reply: _r, ...rec } = e;
  return { ...rec };
}

function parseLine(text: string): Line | undefined {
  try {
    const v = JSON.parse(text) as Line;
    if (!v || typeof v !== "object" || typeof v.op_id !== "string") return undefined;
    if (v.e === "reserved" && typeof v.method === "string" && typeof v.params_hash === "string") return v;
    if (v.e === "outcome" && typeof v.state === "string" && v.reply && typeof v.reply === "object") return v;
  } catch {}
  return undefined;
}

function endsWithNewline(fd: number, size: number): boolean {
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, size - 1);
  return b[0] === 10;
}

/** The per-home HMAC key: made once (exclusively, 0600), then read. */
function loadKey(path: string): Buffer {
  if (!existsSync(path)) {
    const key = Buffer.from(crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
    try {
      writeFileSync(path, key.toString("hex"), { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  const hex = readFileSync(path, "utf8").trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    throw new BskError("unsupported", `the ledger key ${path} is not readable as 32 hex bytes`, {
      hint: "Move it aside and restart the daemon; ops recorded under the old key will be refused if retried.",
      data: { reason: "ledger_unavailable" },
    });
  }
  return Buffer.from(hex, "hex");
}
