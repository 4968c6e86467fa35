/**
 * A bounded log with a monotonic sequence number per entry: the newest `capacity` entries are kept, the rest
 * are counted as dropped. Reads page forward with a `since` cursor. Pure (no chrome.*), so bun test imports it.
 */

export interface Page<T> {
  entries: T[];
  /** Pass as `since` next time: the last entry returned, or everything read so far when the page is not full. */
  next_since: number;
  /** Entries after `since` that the ring no longer holds. */
  dropped: number;
}

export class Ring<T extends { seq: number }> {
  private readonly items: (T | undefined)[];
  private head = 0;
  private count = 0;
  private last = 0;

  constructor(readonly capacity: number) {
    this.items = new Array(capacity);
  }

  get lastSeq(): number {
    return this.last;
  }

  /** Appends the entry `make` builds for the next sequence number. */
  push(make: (seq: number) => T): T {
    const entry = make(++this.last);
    this.items[(this.head + this.count) % this.capacity] = entry;
    if (this.count < this.capacity) this.count++;
    else this.head = (this.head + 1) % this.capacity;
    return entry;
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
