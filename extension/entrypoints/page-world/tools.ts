/**
 * What the page-world registries (drops.ts, work.ts) share: the built-ins they use, taken before any page script
 * runs (what the page could patch later — Set, WeakMap, dispatchEvent, … — is taken now), and `wrap`, which puts a
 * Proxy around a built-in that calls it first, unchanged, then notes the call. A wrapper's source reads as the
 * built-in's (Function.prototype.toString is wrapped for that, and reads as itself).
 */
export type PageTools = ReturnType<typeof pageTools>;

export function pageTools() {
  const uncurry = <A extends unknown[], R>(f: (...args: A) => R) =>
    Function.prototype.call.bind(f) as unknown as (self: unknown, ...args: A) => R;
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const ProxyCtor = Proxy;
  const mapGet = uncurry(WeakMap.prototype.get);
  const mapSet = uncurry(WeakMap.prototype.set);

  /** Each wrapper → the built-in it wraps: Function.prototype.toString reads the built-in's source for it. */
  const originals = new WeakMap<object, unknown>();
  /** `before` runs ahead of the built-in and may swap its arguments; `after` sees its answer. Neither can throw into the page. */
  const wrap = <F extends (...args: never[]) => unknown>(
    f: F,
    after: (self: unknown, args: unknown[], result: unknown) => void,
    before?: (self: unknown, args: unknown[]) => unknown[],
  ): F => {
    const w = new ProxyCtor(f, {
      apply(target, self, args: unknown[]) {
        let used = args;
        if (before) {
          try {
            used = before(self, args);
          } catch {
            used = args;
          }
        }
        const r = apply(target, self, used);
        try {
          after(self, args, r);
        } catch {
          // Bookkeeping never changes what the page's call does.
        }
        return r;
      },
    });
    // A built-in wrapped twice (both registries wrap addEventListener) still reads as the built-in.
    mapSet(originals, w, mapGet(originals, f) ?? f);
    return w;
  };
  /** Wraps a constructor: `made` sees each new object before the page does. */
  const wrapConstruct = <C extends new (...args: never[]) => object>(ctor: C, made: (obj: object) => void): C => {
    const w = new ProxyCtor(ctor, {
      construct(target, args, newTarget) {
        const obj = construct(target, args, newTarget === w ? target : newTarget) as object;
        try {
          made(obj);
        } catch {
          // Bookkeeping never changes what the page gets.
        }
        return obj;
      },
    });
    mapSet(originals, w, mapGet(originals, ctor) ?? ctor);
    return w;
  };
  // A Proxy's source reads "function () { [native code] }", without the name a check for native code expects.
  const fnProto = Function.prototype;
  const sourceOf = fnProto.toString;
  fnProto.toString = new ProxyCtor(sourceOf, {
    apply: (target, self, args: unknown[]) => apply(target, mapGet(originals, self) ?? self, args),
  });
  mapSet(originals, fnProto.toString, sourceOf);

  /** Wraps the setter of `props` on each holder (an `on…` handler property): `note(self, prop, set)`. */
  const wrapHandlers = (holders: object[], props: string[], note: (self: unknown, prop: string, on: boolean) => void) => {
    for (const holder of holders) {
      for (const prop of props) {
        const d = Object.getOwnPropertyDescriptor(holder, prop);
        if (!d?.set || !d.configurable) continue;
        d.set = wrap(d.set, (self, a) => note(self, prop, typeof a[0] === "function"));
        Object.defineProperty(holder, prop, d);
      }
    }
  };

  return {
    uncurry,
    apply,
    wrap,
    wrapConstruct,
    wrapHandlers,
    mapGet,
    mapSet,
    addListener: EventTarget.prototype.addEventListener,
    SetCtor: Set,
    setAdd: uncurry(Set.prototype.add),
    setDelete: uncurry(Set.prototype.delete),
    setHas: uncurry(Set.prototype.has),
    setSize: uncurry(Object.getOwnPropertyDescriptor(Set.prototype, "size")!.get!),
    preventDefault: uncurry(Event.prototype.preventDefault),
  };
}
