/**
 * The daemon collects its garbage when it is idle, at most once every `everyMs`. JavaScriptCore collects when
 * allocation says so; between bursts of calls the heap's high-water mark then stays resident: in the soak a daemon's
 * RSS climbed from ~68 to ~80 MB over its first minutes while its live heap stayed ~8 MB, and a daemon collected
 * every 10 s stayed at ~70–72 MB. So after calls have come it collects (a few ms on a heap this size), when none is in
 * flight if it can: a busy daemon (agents calling back to back, an `events --follow` always open) waits at most one
 * more look, then collects anyway. A daemon nobody calls never wakes for it. Each collection is logged with the RSS
 * left after it: the daemon's memory without the garbage of the last minute, which is what the soak's slope reads.
 */
export const IDLE_GC_EVERY_MS = 30_000;

export interface IdleGcDeps {
  /** Calls handled so far (a counter): a collection is due only after new ones. */
  handled: () => number;
  /** Calls in flight now. */
  inFlight: () => number;
  collect?: () => void;
  /** After each collection: what it took and what stays resident (the daemon logs it; the soak reads it). */
  onCollected?: (ms: number) => void;
  everyMs?: number;
}

export class IdleGc {
  private seen = 0;
  /** Looks that found calls in flight since the last collection was due. */
  private deferred = 0;
  private readonly timer: Timer;
  /** Collections made (for tests). */
  collections = 0;

  constructor(private readonly deps: IdleGcDeps) {
    this.timer = setInterval(() => this.tick(), deps.everyMs ?? IDLE_GC_EVERY_MS);
    this.timer.unref();
  }

  /** One look: collects when calls came since the last collection and none is in flight, or the last look was busy too. */
  tick(): void {
    const handled = this.deps.handled();
    if (handled === this.seen) return;
    if (this.deps.inFlight() > 0 && this.deferred++ < 1) return;
    this.deferred = 0;
    this.seen = handled;
    const start = performance.now();
    (this.deps.collect ?? (() => Bun.gc(true)))();
    this.collections++;
    this.deps.onCollected?.(performance.now() - start);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
