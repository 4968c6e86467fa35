/**
 * A bounded log with a monotonic sequence number per entry: the newest `capacity` entries are kept, the rest
 * are counted as dropped. With a budget, also no more than `budget.chars` characters of the entries' text (what
 * `budget.weigh` counts): the oldest go first, the newest always stays. Reads page forward with a `since` cursor.
 * Pure (no chrome.*), so bun test imports it.
 */

export interface Page<T> {
  entries: T[];
  /** Pass as `since` next time: the last entry returned, or everything read so far when the page is not full. */
  next_since: number;
  /** Entries after `since` that the ring no longer holds. */
  dropped: number;
}

export interface RingBudget<T> {
  chars: number;
  weigh: (e: T) => number;
}

export class Ring<T extends { seq: number }> {
  private readonly items: (T | undefined)[];
  private readonly weights: number[];
  private head = 0;
  private count = 0;
  private last = 0;
  private held = 0;

  constructor(
    readonly capacity: number,
    private readonly budget?: RingBudget<T>,
  ) {
    this.items = new Array(capacity);
    this.weights = new Array(capacity).fill(0);
  }

  get lastSeq(): number {
    return this.last;
  }

  /** Characters held now (0 without a budget). */
  get chars(): number {
    return this.held;
  }

  /** Appends the entry `make` builds for the next sequence number. */
  push(make: (seq: number) => T): T {
    const entry = make(++this.last);
    if (this.count === this.capacity) this.dropOldest();
    const at = (this.head + this.count) % this.capacity;
    const weight = this.budget ? this.budget.weigh(entry) : 0;
    this.items[at] = entry;
    this.weights[at] = weight;
    this.held += weight;
    this.count++;
    while (this.budget && this.held > this.budget.chars && this.count > 1) this.dropOldest();
    return entry;
  }

  private dropOldest(): void {
    this.held -= this.weights[this.head]!;
    this.items[this.head] = undefined;
    this.weights[this.head] = 0;
    this.head = (this.head + 1) % this.capacity;
    this.count--;
  }

  /**
   * Entries after `since` that `keep` accepts, oldest first, at most `limit`. A cursor beyond the newest entry
   * comes from an earlier life of the ring (the service worker restarted and numbering began again), so it
   * reads from the start.
   */
  read(since: number, limit: number, keep: (e: T) => boolean = () => true): Page<T> {
    if (since > this.last) since = 0;
    const first = this.last - this.count + 1;
    const dropped = Math.max(0, first - 1 - since);
    const entries: T[] = [];
    for (let i = Math.max(0, since + 1 - first); i < this.count; i++) {
      const e = this.items[(this.head + i) % this.capacity]!;
      if (!keep(e)) continue;
      entries.push(e);
      if (entries.length === limit) return { entries, next_since: e.seq, dropped };
    }
    return { entries, next_since: Math.max(since, this.last), dropped };
  }
}

/** Cuts `text` to at most `max` characters, saying how much was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const kept = Math.max(0, max - 20); // the marker below stays under 20 characters
  return `${text.slice(0, kept)}… [+${text.length - kept} chars]`;
}
