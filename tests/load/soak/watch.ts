/**
 * What the soak watches while it runs: the person's probe (one DevTools round trip a second, timed), memory and the
 * size of bsk's home every 10 s, and each session's event stream as an agent following it would see it.
 */
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { EventStream, MemorySample } from "../../../scripts/soak/run.ts";
import { BSK, type World } from "../../e2e/harness.ts";
import { daemonPid } from "../../e2e/daemon-process.ts";
import { serviceWorker } from "../../e2e/devtools.ts";
import { FILLER } from "./ledger-disk.ts";

/** Runs `tick` every `everyMs` (from the start of the last one, never two at once) until `done()`. */
export async function every(everyMs: number, done: () => boolean, tick: () => Promise<void>): Promise<void> {
  while (!done()) {
    const start = performance.now();
    await tick();
    const rest = everyMs - (performance.now() - start);
    if (rest > 0 && !done()) await Bun.sleep(rest);
  }
}

/** The person's side asks the browser something once a second; how long each answer took. */
export function personProbe(w: World, now: () => number, done: () => boolean, out: { t: number; ms: number | null }[]): Promise<void> {
  return every(1000, done, async () => {
    const t = now();
    const start = performance.now();
    try {
      await w.person.send("Target.getTargets");
      out.push({ t, ms: performance.now() - start });
    } catch {
      out.push({ t, ms: null });
    }
  });
}

/** Bytes under `dir`, the browser's profile and the disk-full fault's filler left out (neither is bsk's). */
export function homeBytes(dir: string, skip = new Set(["profile", FILLER])): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (skip.has(name)) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      total += st.isDirectory() ? homeBytes(path, new Set([FILLER])) : st.size;
    } catch {
      /* gone meanwhile (rotated) */
    }
  }
  return total;
}

function rssMb(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * The extension's service worker's live JS heap, if it runs: garbage collected first (HeapProfiler.collectGarbage),
 * then Runtime.getHeapUsage, so the slope is of what the worker keeps, not of garbage not yet collected (which grew
 * ~6 MB a minute between collections in a 6-minute run and read as a leak).
 */
async function workerHeap(w: World): Promise<{ worker: string; mb: number } | undefined> {
  const sw = await serviceWorker(w.person).catch(() => undefined);
  if (!sw) return undefined;
  try {
    const { sessionId } = await w.person.send("Target.attachToTarget", { targetId: sw.targetId, flatten: true });
    try {
      await w.person.send("HeapProfiler.collectGarbage", {}, sessionId);
      const { usedSize } = await w.person.send("Runtime.getHeapUsage", {}, sessionId);
      return { worker: sw.targetId, mb: usedSize / 2 ** 20 };
    } finally {
      await w.person.send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
    }
  } catch {
    return undefined;
  }
}

/** What a daemon's collection left: its RSS and live heap right after `Bun.gc(true)` (daemon/idle-gc.ts logs it). */
export interface Collection {
  pid: number;
  rss_mb: number;
  heap_mb: number;
}

/**
 * Reads the daemon's log as it grows (across its rotation to daemon.log.1) and hands back the collections logged
 * since the last read: the daemon's memory without the garbage of its last minute, as the worker's heap is sampled
 * after a collection too.
 */
export class CollectionTail {
  private ino = -1;
  private offset = 0;
  private rest = "";

  constructor(private readonly path: string) {}

  read(): Collection[] {
    let ino: number;
    try {
      ino = statSync(this.path).ino;
    } catch {
      return [];
    }
    let text = "";
    if (ino !== this.ino) {
      // Rotated (or first read): the old file's rest is daemon.log.1 now, if it is the file we were reading.
      if (this.ino !== -1) text += this.from(`${this.path}.1`, this.ino);
      this.ino = ino;
      this.offset = 0;
    }
    text += this.from(this.path, ino);
    const lines = (this.rest + text).split("\n");
    this.rest = lines.pop() ?? "";
    return lines.flatMap((line) => {
      if (!line.includes('"collected"')) return [];
      try {
        const l = JSON.parse(line) as { msg?: string; pid?: number; rss_mb?: number; heap_mb?: number };
        return l.msg === "collected" && l.pid !== undefined && l.rss_mb !== undefined && l.heap_mb !== undefined
          ? [{ pid: l.pid, rss_mb: l.rss_mb, heap_mb: l.heap_mb }]
          : [];
      } catch {
        return [];
      }
    });
  }

  private from(path: string, ino: number): string {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch {
      return "";
    }
    try {
      const st = fstatSync(fd);
      if (st.ino !== ino || st.size <= this.offset) return "";
      const buf = Buffer.alloc(st.size - this.offset);
      const n = readSync(fd, buf, 0, buf.length, this.offset);
      this.offset += n;
      return buf.subarray(0, n).toString("utf8");
    } finally {
      closeSync(fd);
    }
  }
}

export function memorySampler(w: World, now: () => number, done: () => boolean, out: MemorySample[]): Promise<void> {
  const collections = new CollectionTail(join(w.home, "logs", "daemon.log"));
  return every(10_000, done, async () => {
    const t = now();
    let pid: number | undefined;
    try {
      pid = daemonPid(w.home);
    } catch {
      pid = undefined;
    }
    const rss = pid === undefined ? undefined : rssMb(pid);
    const collected = collections.read().findLast((c) => c.pid === pid);
    const heap = await workerHeap(w);
    // What the machine alone costs a call: a bsk process that asks nobody anything.
    const start = performance.now();
    await w.bsk(["version"]);
    const floor = performance.now() - start;
    out.push({
      t,
      cli_floor_ms: floor,
      ...(rss !== undefined && { daemon_pid: pid, daemon_rss_mb: rss }),
      ...(collected && { daemon_pid: pid, daemon_rss_gc_mb: collected.rss_mb, daemon_heap_mb: collected.heap_mb }),
      ...(heap && { worker: heap.worker, worker_heap_mb: heap.mb }),
      home_bytes: homeBytes(w.home),
    });
  });
}

/**
 * Follows one session's events as an agent would (`bsk events --follow`), and follows again from the last seq it
 * saw whenever the stream ends early (the daemon was killed, a timeout). `stop()` ends it; `catchUp()` then reads
 * what came after the last delivered seq, which is what a follower coming back would read.
 */
export class Follower {
  readonly stream: EventStream;
  private proc?: ReturnType<typeof Bun.spawn>;
  private stopped = false;
  readonly done: Promise<void>;

  constructor(
    private readonly w: World,
    session: string,
  ) {
    this.stream = { session, seqs: [], last: 0, lost: 0 };
    this.done = this.loop();
  }

  /** The session ended (its `session.ended` was delivered, or the daemon no longer knows it): nothing more will come. */
  private ended = false;

  private take(e: { seq?: number; event?: string; data?: { count?: number }; error?: { code?: string } }): void {
    if (e.event === "session.ended" || e.error?.code === "not_found") this.ended = true;
    if (typeof e.seq !== "number") return;
    this.stream.seqs.push(e.seq);
    this.stream.last = Math.max(this.stream.last, e.seq);
    if (e.event === "events.lost") this.stream.lost += e.data?.count ?? 0;
  }

  private async loop(): Promise<void> {
    // A follower of an ended session stops: following it again every half second for the rest of the run was the
    // soak's own load growing with every session it ended.
    while (!this.stopped && !this.ended) {
      const args = [
        "events",
        "--follow",
        "--session",
        this.stream.session,
        "--since",
        String(this.stream.last),
        "--timeout",
        "30m",
        "--json",
      ];
      const proc = Bun.spawn([BSK, ...args], { env: this.w.env, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
      this.proc = proc;
      let buf = "";
      const decoder = new TextDecoder();
      const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          try {
            this.take(JSON.parse(line));
          } catch {
            /* not an event line (a final error object) */
          }
        }
      }
      await proc.exited;
      // Not a busy loop: a stream that ended (the daemon restarting) is followed again a moment later.
      if (!this.stopped && !this.ended) await Bun.sleep(500);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.proc?.kill();
    await this.done;
  }

  /** Reads, page by page, every event after the last one delivered. */
  async catchUp(): Promise<EventStream> {
    for (;;) {
      const r = await this.w.bsk([
        "events",
        "--session",
        this.stream.session,
        "--since",
        String(this.stream.last),
        "--limit",
        "1000",
        "--json",
      ]);
      const events: { seq?: number }[] = r.json?.result?.events ?? [];
      for (const e of events) this.take(e);
      if (events.length === 0) return this.stream;
    }
  }
}
