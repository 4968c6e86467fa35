/**
 * Bursts of one kind of event (console errors, failed requests, DOM mutation summaries, …) per tab are coalesced in
 * short windows: the first event of a window goes out at once; the ones after it within the window are folded into
 * one event, sent when the window closes, whose payload is the last one's plus `count` (how many it stands for). A
 * steady stream thus yields one event per window, and the counts add up to every event that happened. `flush()`
 * sends the folded events at once, so an event of another kind never overtakes a burst that began before it.
 * Pure (timers injected), unit-tested.
 */
export const WINDOW_MS = 250;

type Out = (event: string, payload: Record<string, unknown>) => void;

interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

interface Window {
  timer: unknown;
  folded: number;
  last?: { event: string; payload: Record<string, unknown> };
}

const realTimers: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) };

export class Coalescer {
  /** Open windows by key, in the order they opened (Map order), so a flush keeps bursts in order. */
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly out: Out,
    private readonly windowMs = WINDOW_MS,
    private readonly timers: Timers = realTimers,
  ) {}

  /** `key` names the burst: the kind and where (e.g. `console.error:12`). */
  push(key: string, event: string, payload: Record<string, unknown>): void {
    const w = this.windows.get(key);
    if (w) {
      w.folded++;
      w.last = { event, payload };
      return;
    }
    this.out(event, payload);
    this.open(key);
  }

  /** The folded events not yet sent, as they would go out now (kept with the outbox, so a stopped worker keeps them). */
  pending(): { event: string; payload: Record<string, unknown> }[] {
    const out: { event: string; payload: Record<string, unknown> }[] = [];
    for (const w of this.windows.values())
      if (w.folded && w.last) out.push({ event: w.last.event, payload: { ...w.last.payload, count: w.folded } });
    return out;
  }

  /** Send every folded event now (oldest window first) and close the windows. */
  flush(): void {
    for (const key of [...this.windows.keys()]) this.close(key, false);
  }

  private open(key: string): void {
    this.windows.set(key, { timer: this.timers.set(() => this.close(key, true), this.windowMs), folded: 0 });
  }

  private close(key: string, reopen: boolean): void {
    const w = this.windows.get(key);
    if (!w) return;
    this.timers.clear(w.timer);
    this.windows.delete(key);
    if (!w.folded || !w.last) return;
    this.out(w.last.event, { ...w.last.payload, count: w.folded });
    // Still busy: keep folding in the next window rather than letting its first event through alone.
    if (reopen) this.open(key);
  }
}
