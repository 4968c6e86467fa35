/**
 * Listeners grouped by a key (a tab id, a tab and a CDP event): `add` returns the listener's own removal, and a key
 * leaves the map with its last listener. Calls come and go per call, so this is where their watchers live.
 */
export class KeyedListeners<K, A extends unknown[]> {
  private readonly byKey = new Map<K, Set<(...args: A) => void>>();

  add(key: K, fn: (...args: A) => void): () => void {
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.byKey.get(key) === set) this.byKey.delete(key);
    };
  }

  /** Calls the key's listeners with `args`; one that removes itself meanwhile does not disturb the others. */
  emit(key: K, ...args: A): void {
    const set = this.byKey.get(key);
    if (set) for (const fn of [...set]) fn(...args);
  }
}
