/**
 * When a busy tab shows it: the edge glow (and the pill's pulse) light up only once a call has run on the tab for
 * GLOW_DELAY_MS. A shorter call would only flash it, and drawing it (a page-wide shadow fading in and out, the pulse)
 * runs on the same cores and the same renderer as the call it shows: measured, it made a click or a key press about a
 * third slower. The glow goes off as soon as the tab is no longer busy.
 */

/** A call that ends sooner than this never lights the glow (people read well under 0.1 s as instant). */
export const GLOW_DELAY_MS = 150;

export interface GlowTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: GlowTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class Glow {
  private readonly lit = new Set<number>();
  private readonly pending = new Map<number, unknown>();

  /** `changed(tabId)`: the tab's glow went on or off (push its view). */
  constructor(
    private readonly changed: (tabId: number) => void,
    private readonly timers: GlowTimers = realTimers,
    private readonly delayMs = GLOW_DELAY_MS,
  ) {}

  isLit(tabId: number): boolean {
    return this.lit.has(tabId);
  }

  /** The tab became busy (a call started on it) or idle (its last call ended). */
  busy(tabId: number, busy: boolean): void {
    if (busy) {
      if (this.lit.has(tabId) || this.pending.has(tabId)) return;
      const handle = this.timers.set(() => {
        this.pending.delete(tabId);
        this.lit.add(tabId);
        this.changed(tabId);
      }, this.delayMs);
      this.pending.set(tabId, handle);
      return;
    }
    if (this.pending.has(tabId)) {
      this.timers.clear(this.pending.get(tabId));
      this.pending.delete(tabId);
    }
    if (this.lit.delete(tabId)) this.changed(tabId);
  }
}
