/**
 * The drop registry: in the page's own world (MAIN) of every frame of the tabs bsk debugs, from document start,
 * before any page script (src/features/drop-script.ts adds it to the tab's attachment). It notes which targets have drop, dragover or dragenter listeners — added with
 * addEventListener or set as ondrop/ondragover/ondragenter — and answers the snapshot's ask by marking each one
 * (src/shared/messages/drops.ts says how and why the page cannot abuse that).
 *
 * The wrappers are Proxies of the built-ins that call them first, unchanged, and whose source reads as the
 * built-in's (Function.prototype.toString is wrapped for that, and reads as itself); other event types cost one typeof and three compares. Nothing is kept strongly: a removed element
 * with a listener is not held. What the page could patch later (Set, WeakMap, dispatchEvent, …) is taken now.
 */
import { defineUnlistedScript } from "wxt/utils/define-unlisted-script";
import { DROP_ASK, DROP_HELLO, DROP_MARK } from "../src/shared/messages/drops.ts";

export default defineUnlistedScript(() => {
  // One registry per document: the one there already says so by cancelling the hello.
  if (!document.dispatchEvent(new Event(DROP_HELLO, { cancelable: true }))) return;
  const uncurry = <A extends unknown[], R>(f: (...args: A) => R) =>
    Function.prototype.call.bind(f) as unknown as (self: unknown, ...args: A) => R;
  const apply = Reflect.apply;
  const ProxyCtor = Proxy;
  const SetCtor = Set;
  const WeakSetCtor = WeakSet;
  const WeakRefCtor = WeakRef;
  const EventCtor = Event;
  const mapGet = uncurry(WeakMap.prototype.get);
  const mapSet = uncurry(WeakMap.prototype.set);
  const mapDelete = uncurry(WeakMap.prototype.delete);
  const setAdd = uncurry(Set.prototype.add);
  const setDelete = uncurry(Set.prototype.delete);
  const setSize = uncurry(Object.getOwnPropertyDescriptor(Set.prototype, "size")!.get!);
  const weakAdd = uncurry(WeakSet.prototype.add);
  const weakHas = uncurry(WeakSet.prototype.has);
  const deref = uncurry(WeakRef.prototype.deref);
  const dispatch = uncurry(EventTarget.prototype.dispatchEvent);
  const preventDefault = uncurry(Event.prototype.preventDefault);
  const keysOf = Object.keys;
  const startsWith = uncurry(String.prototype.startsWith);
  const slice = uncurry(String.prototype.slice);
  const elementAll = uncurry(Element.prototype.querySelectorAll);
  const documentAll = uncurry(Document.prototype.querySelectorAll);
  const countOf = uncurry(Object.getOwnPropertyDescriptor(NodeList.prototype, "length")!.get!);
  const doc = document;
  const win = window;

  /** Per target, its drop-type listeners (a property handler counts as its property's name). */
  const listeners = new WeakMap<object, Set<unknown>>();
  /** Targets ever noted, for the answer (a WeakSet cannot be walked); `tracked` keeps each in it once. */
  let noted: WeakRef<object>[] = [];
  const tracked = new WeakSetCtor<object>();

  const isDropType = (type: unknown) => type === "drop" || type === "dragover" || type === "dragenter";
  const note = (self: unknown, listener: unknown, on: boolean) => {
    const target = (self ?? win) as object;
    let set = mapGet(listeners, target);
    if (on) {
      if (!set) mapSet(listeners, target, (set = new SetCtor()));
      setAdd(set, listener);
      if (!weakHas(tracked, target)) {
        weakAdd(tracked, target);
        noted[noted.length] = new WeakRefCtor(target);
      }
    } else if (set) {
      setDelete(set, listener);
      if (setSize(set) === 0) mapDelete(listeners, target);
    }
  };

  /** Each wrapper → the built-in it wraps: Function.prototype.toString reads the built-in's source for it. */
  const originals = new WeakMap<object, unknown>();
  const wrap = <F extends (...args: never[]) => unknown>(f: F, after: (self: unknown, args: unknown[]) => void): F => {
    const w = new ProxyCtor(f, {
      apply(target, self, args: unknown[]) {
        const r = apply(target, self, args);
        try {
          after(self, args);
        } catch {
          // Bookkeeping never changes what the page's call does.
        }
        return r;
      },
    });
    mapSet(originals, w, f);
    return w;
  };
  // A Proxy's source reads "function () { [native code] }", without the name a check for native code expects.
  const fnProto = Function.prototype;
  const sourceOf = fnProto.toString;
  fnProto.toString = new ProxyCtor(sourceOf, {
    apply: (target, self, args: unknown[]) => apply(target, mapGet(originals, self) ?? self, args),
  });
  mapSet(originals, fnProto.toString, sourceOf);

  const proto = EventTarget.prototype;
  const addListener = proto.addEventListener;
  // Options are not read (a getter the page counts would see a second read); a listener removed with another
  // capture flag than it was added with unmarks early — a missing hint, never a broken page.
  proto.addEventListener = wrap(proto.addEventListener, (self, a) => {
    if (typeof a[0] === "string" && isDropType(a[0]) && a[1] != null) note(self, a[1], true);
  });
  proto.removeEventListener = wrap(proto.removeEventListener, (self, a) => {
    if (typeof a[0] === "string" && isDropType(a[0]) && a[1] != null) note(self, a[1], false);
  });
  for (const holder of [HTMLElement.prototype, SVGElement.prototype, Document.prototype, win] as object[]) {
    for (const prop of ["ondrop", "ondragover", "ondragenter"]) {
      const d = Object.getOwnPropertyDescriptor(holder, prop);
      if (!d?.set || !d.configurable) continue;
      d.set = wrap(d.set, (self, a) => note(self, prop, typeof a[0] === "function"));
      Object.defineProperty(holder, prop, d);
    }
  }

  const mark = (target: object) => {
    try {
      dispatch(target === win ? doc : target, new EventCtor(DROP_MARK, { composed: true }));
    } catch {
      // A target that cannot take events (never an element) is skipped.
    }
  };

  /**
   * React (17 and later) listens for every event type on its root container and runs a component's onDrop from
   * there, so the zone has no listener of its own and the root is no zone. The root carries `_reactListening<key>`;
   * each element's props sit under `__reactProps$<key>`: the elements whose props have a drop handler are marked.
   */
  const REACT_ROOT = "_reactListening";
  const reactProps = (root: object): string | undefined => {
    const keys = keysOf(root);
    for (let k = 0; k < keys.length; k++) if (startsWith(keys[k]!, REACT_ROOT)) return `__reactProps$${slice(keys[k]!, REACT_ROOT.length)}`;
    return undefined;
  };
  const markReact = (root: object, key: string) => {
    const all = root === doc ? documentAll(doc, "*") : elementAll(root as Element, "*");
    for (let i = 0, n = countOf(all); i < n; i++) {
      try {
        const props = (all[i] as unknown as Record<string, Record<string, unknown> | undefined>)[key];
        if (
          props &&
          (typeof props.onDrop === "function" || typeof props.onDragOver === "function" || typeof props.onDragEnter === "function")
        )
          mark(all[i]!);
      } catch {
        // The page's own props object threw: no hint for that element.
      }
    }
  };

  const answer = () => {
    const kept: WeakRef<object>[] = [];
    for (let i = 0; i < noted.length; i++) {
      const target = deref(noted[i]!);
      if (target === undefined) continue;
      kept[kept.length] = noted[i]!;
      if (!mapGet(listeners, target)) continue;
      const react = target === win ? undefined : reactProps(target);
      if (react) markReact(target, react);
      else mark(target);
    }
    noted = kept;
  };
  apply(addListener, doc, [DROP_ASK, answer, true]);
  apply(addListener, doc, [DROP_HELLO, (e: Event) => preventDefault(e), true]);
});
