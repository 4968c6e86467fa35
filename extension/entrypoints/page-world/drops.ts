/**
 * The drop registry (page world, see index.ts): notes which targets have drop, dragover or dragenter listeners —
 * added with addEventListener or set as ondrop/ondragover/ondragenter — and answers the snapshot's ask by marking
 * each one (src/shared/messages/drops.ts says how and why the page cannot abuse that). Other event types cost one
 * typeof and three compares. Nothing is kept strongly: a removed element with a listener is not held.
 */
import { DROP_ASK, DROP_MARK } from "../../src/shared/messages/drops.ts";
import type { PageTools } from "./tools.ts";

export function installDropRegistry(t: PageTools): void {
  const { uncurry, apply, wrap, wrapHandlers, mapGet, mapSet, addListener, SetCtor, setAdd, setDelete, setSize } = t;
  const WeakSetCtor = WeakSet;
  const WeakRefCtor = WeakRef;
  const EventCtor = Event;
  const mapDelete = uncurry(WeakMap.prototype.delete);
  const weakAdd = uncurry(WeakSet.prototype.add);
  const weakHas = uncurry(WeakSet.prototype.has);
  const deref = uncurry(WeakRef.prototype.deref);
  const dispatch = uncurry(EventTarget.prototype.dispatchEvent);
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

  const proto = EventTarget.prototype;
  // Options are not read (a getter the page counts would see a second read); a listener removed with another
  // capture flag than it was added with unmarks early — a missing hint, never a broken page.
  proto.addEventListener = wrap(proto.addEventListener, (self, a) => {
    if (typeof a[0] === "string" && isDropType(a[0]) && a[1] != null) note(self, a[1], true);
  });
  proto.removeEventListener = wrap(proto.removeEventListener, (self, a) => {
    if (typeof a[0] === "string" && isDropType(a[0]) && a[1] != null) note(self, a[1], false);
  });
  wrapHandlers([HTMLElement.prototype, SVGElement.prototype, Document.prototype, win], ["ondrop", "ondragover", "ondragenter"], note);

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
}
