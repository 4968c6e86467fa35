/**
 * A retry delay that starts at `min` and doubles with each retry up to `max`; `reset` starts over (a link that came
 * up, or a trigger other than the back-off's own retry). Pure, unit-tested.
 */
export class Backoff {
  private delay: number;

  constructor(
    private readonly min: number,
    private readonly max: number,
  ) {
    this.delay = min;
  }

  /** The delay to wait now; the one after it is twice as long (at most `max`). */
  next(): number {
    const now = this.delay;
    this.delay = Math.min(this.delay * 2, this.max);
    return now;
  }

  reset(): void {
    this.delay = this.min;
  }
}
