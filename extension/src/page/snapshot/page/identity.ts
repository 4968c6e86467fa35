/**
 * Node identity, kept in bsk's isolated world of each document: a node keeps its number for as long as it lives,
 * and a number is never given to another node. Numbers come from the session's counter in the worker (`floor`);
 * the registry also remembers its own highest, so a worker that lost an unsaved counter still never reuses one.
 */
export class RefRegistry {
  private next = 1;
  private readonly byNode = new WeakMap<Element, number>();
  private readonly byNum = new Map<number, WeakRef<Element>>();

  /** Raises the next number to at least `floor` (the session counter as the worker knows it). */
  reserveFrom(floor: number): void {
    if (floor > this.next) this.next = floor;
  }

  numberOf(el: Element): number | undefined {
    return this.byNode.get(el);
  }

  assign(el: Element): number {
    let n = this.byNode.get(el);
    if (n === undefined) {
      n = this.next++;
      this.byNode.set(el, n);
      this.byNum.set(n, new WeakRef(el));
    }
    return n;
  }

  get nextNumber(): number {
    return this.next;
  }

  /** The element, or why not: "unknown" (never numbered here), "gone" (collected), "detached" (out of the document). */
  lookup(n: number): Element | "unknown" | "gone" | "detached" {
    const weak = this.byNum.get(n);
    if (!weak) return "unknown";
    const el = weak.deref();
    if (!el) {
      this.byNum.delete(n);
      return "gone";
    }
    return el.isConnected ? el : "detached";
  }
}
