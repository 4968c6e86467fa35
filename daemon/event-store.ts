/**
 * Session event streams on disk: `$BSK_HOME/events/<session>.jsonl` (0600), one event per line with its
 * daemon-owned `seq`. Lines are written synchronously (no fsync: a killed daemon loses nothing the kernel has; the
 * extension's unacknowledged events are resent anyway), so seqs continue without a gap or a repeat after a
 * restart. Extension events also record their source stream and number (`src`, `sseq`), which is how duplicates
 * are recognised after a daemon restart.
 *
 * Bounds: a stream over `perSessionBytes` (4 MiB) keeps its newest half (seqs unchanged; readers see `dropped`).
 * Files untouched for `maxAgeMs` (7 days) are deleted; while all files together exceed `maxTotalBytes` (64 MiB),
 * the least recently written go first, but never one written within `minKeepMs` (24 h).
 */
import { appendFileSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import {
  EventListeners,
  pageOf,
  type AppendExtra,
  type EventListener,
  type EventPage,
  type EventQuery,
  type EventSink,
  type SessionEvent,
} from "./event-log.ts";
import { ensurePrivateDir, writeFileAtomic } from "../shared/fs-util.ts";

export interface FileEventLogOptions {
  perSessionBytes?: number;
  maxTotalBytes?: number;
  minKeepMs?: number;
  maxAgeMs?: number;
  now?: () => number;
  onWarn?: (msg: string, fields: Record<string, unknown>) => void;
}

export const EVENT_LOG_DEFAULTS = {
  perSessionBytes: 4 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
  minKeepMs: 24 * 3600_000,
  maxAgeMs: 7 * 24 * 3600_000,
};

/** How often creating a new stream re-checks the total bound. */
const PRUNE_EVERY_MS = 60_000;
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface Line extends SessionEvent {
  src?: string;
  sseq?: number;
}

interface Stream {
  lastSeq: number;
  bytes: number;
  /** The file ends mid-line (a daemon died mid-write): the next line starts on a fresh one. */
  torn: boolean;
}

export class FileEventLog implements EventSink {
  private readonly streams = new Map<string, Stream>();
  private readonly listeners = new EventListeners();
  private readonly opts: Required<Omit<FileEventLogOptions, "onWarn">> & Pick<FileEventLogOptions, "onWarn">;
  private lastPrune = 0;

  constructor(
    private readonly dir: string,
    opts: FileEventLogOptions = {},
  ) {
    this.opts = { ...EVENT_LOG_DEFAULTS, now: Date.now, ...opts };
    ensurePrivateDir(dir);
    this.prune();
  }

  append(sessionId: string, event: string, data: Record<string, unknown> = {}, extra: AppendExtra = {}): SessionEvent {
    const path = this.path(sessionId);
    const stream = this.stream(sessionId);
    const entry: SessionEvent = { seq: stream.lastSeq + 1, ts: new Date(this.opts.now()).toISOString(), event, data };
    if (extra.count !== undefined && extra.count > 1) entry.count = extra.count;
    const line: Line = extra.source ? { ...entry, src: extra.source.key, sseq: extra.source.seq } : entry;
    const text = `${stream.torn ? "\n" : ""}${JSON.stringify(line)}\n`;
    try {
      appendFileSync(path, text, { mode: 0o600 });
      stream.torn = false;
      stream.bytes += Buffer.byteLength(text);
    } catch (err) {
      // The stream goes on in memory (followers still see it); the disk problem is reported once per append.
      this.opts.onWarn?.("could not write an event", {
        session: sessionId,
        event,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    stream.lastSeq = entry.seq;
    if (stream.bytes > this.opts.perSessionBytes) this.compact(sessionId, stream);
    this.listeners.notify(sessionId, entry);
    return entry;
  }

  eventsFor(sessionId: string, sinceSeq = 0): SessionEvent[] {
    return this.read(sessionId, { since: sinceSeq }).events;
  }

  read(sessionId: string, q: EventQuery = {}): EventPage {
    const lines = this.lines(sessionId);
    const stream = this.stream(sessionId);
    return pageOf(lines.map(publicEvent), stream.lastSeq, q);
  }

  subscribe(sessionId: string, fn: EventListener): () => void {
    return this.listeners.add(sessionId, fn);
  }

  lastSourceSeq(key: string, sessionIds: readonly string[]): number {
    let max = 0;
    for (const id of sessionIds) for (const l of this.lines(id)) if (l.src === key && (l.sseq ?? 0) > max) max = l.sseq!;
    return max;
  }

  close(): void {}

  // ------------------------------------------------------------------ internals

  private path(sessionId: string): string {
    if (!SAFE_ID.test(sessionId)) throw new Error(`not a session id: ${JSON.stringify(sessionId)}`);
    return `${this.dir}/${sessionId}.jsonl`;
  }

  /** The stream's state, read from its file the first time (seqs continue where the last daemon left them). */
  private stream(sessionId: string): Stream {
    let s = this.streams.get(sessionId);
    if (s) return s;
    let text = "";
    try {
      text = readFileSync(this.path(sessionId), "utf8");
    } catch {
      if (this.opts.now() - this.lastPrune > PRUNE_EVERY_MS) this.prune();
    }
    const lines = parseLines(text);
    s = { lastSeq: lines.at(-1)?.seq ?? 0, bytes: Buffer.byteLength(text), torn: text.length > 0 && !text.endsWith("\n") };
    this.streams.set(sessionId, s);
    return s;
  }

  private lines(sessionId: string): Line[] {
    try {
      return parseLines(readFileSync(this.path(sessionId), "utf8"));
    } catch {
      return [];
    }
  }

  /** Keep the newest half of an oversized stream (written aside, then renamed over it). */
  private compact(sessionId: string, stream: Stream): void {
    const path = this.path(sessionId);
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l.trim());
    let keep = 0;
    let bytes = 0;
    for (let i = lines.length - 1; i >= 0 && bytes + lines[i]!.length + 1 <= this.opts.perSessionBytes / 2; i--) {
      bytes += Buffer.byteLength(lines[i]!) + 1;
      keep++;
    }
    const text = lines
      .slice(lines.length - keep)
      .map((l) => `${l}\n`)
      .join("");
    writeFileAtomic(path, text);
    stream.bytes = Buffer.byteLength(text);
    stream.torn = false;
  }

  /** Age and total bounds over every stream (see the header). */
  private prune(): void {
    this.lastPrune = this.opts.now();
    const now = this.opts.now();
    let files: { name: string; bytes: number; mtime: number }[];
    try {
      files = readdirSync(this.dir)
        .filter((n) => n.endsWith(".jsonl"))
        .map((name) => {
          const st = statSync(`${this.dir}/${name}`);
          return { name, bytes: st.size, mtime: st.mtimeMs };
        })
        .sort((a, b) => a.mtime - b.mtime);
    } catch {
      return;
    }
    let total = files.reduce((s, f) => s + f.bytes, 0);
    for (const f of files) {
      const age = now - f.mtime;
      if (age <= this.opts.minKeepMs) break;
      if (age <= this.opts.maxAgeMs && total <= this.opts.maxTotalBytes) continue;
      rmSync(`${this.dir}/${f.name}`, { force: true });
      this.streams.delete(f.name.slice(0, -".jsonl".length));
      total -= f.bytes;
    }
  }
}

function publicEvent(l: Line): SessionEvent {
  const e: SessionEvent = { seq: l.seq, ts: l.ts, event: l.event, data: l.data ?? {} };
  if (l.count !== undefined) e.count = l.count;
  return e;
}

/** Complete, readable lines; a torn or corrupt one is skipped. */
function parseLines(text: string): Line[] {
  const out: Line[] = [];
  for (const raw of text.split("\n")) {
    if (!raw.trim()) continue;
    try {
      const l = JSON.parse(raw) as Line;
      if (l && typeof l.seq === "number" && typeof l.event === "string") out.push(l);
    } catch {}
  }
  return out;
}
