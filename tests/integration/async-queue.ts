/** A queue a test awaits items from: `next(pred)` resolves with the first matching item, now or when it arrives. */
export class AsyncQueue<T> {
  private readonly items: T[] = [];
  private readonly waiters: { pred: (t: T) => boolean; resolve: (t: T) => void }[] = [];
  readonly all: T[] = [];

  push(item: T): void {
    this.all.push(item);
    const i = this.waiters.findIndex((w) => w.pred(item));
    if (i >= 0) {
      const [w] = this.waiters.splice(i, 1);
      w!.resolve(item);
    } else this.items.push(item);
  }

  next(pred: (t: T) => boolean = () => true, what = "an item", timeoutMs = 5000): Promise<T> {
    const i = this.items.findIndex(pred);
    if (i >= 0) return Promise.resolve(this.items.splice(i, 1)[0]!);
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    const waiter = {
      pred,
      resolve: (t: T) => {
        clearTimeout(timer);
        resolve(t);
      },
    };
    // A guard so a broken test fails with a message instead of hanging the suite; never a synchronisation.
    const timer = setTimeout(() => {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    this.waiters.push(waiter);
    return promise;
  }

  /** Items received and not yet taken. */
  pending(): readonly T[] {
    return this.items;
  }
}
