/**
 * The work registry (page world, see index.ts): knows whether the page has work queued that could change its DOM
 * after an input's handlers are done — in the next animation frame or a task — and tells an action's effect probe
 * (page/effects.ts, src/shared/messages/page-world.ts). With nothing queued, the probe reads the DOM as soon as the
 * page has handled the input; otherwise it waits for the frame after it, as it does without this registry.
 *
 * Queued work: animation frame callbacks not yet run, short timers (under a frame) not yet fired or cleared,
 * anything posted since the probe's mark (messages, idle callbacks, scheduled tasks), a listener of an event the
 * browser fires in the frame or a task after an input (scroll, selectionchange, toggle, transitions, …), and an
 * observer of size or visibility. Counting errs on the side of waiting: what is not understood counts as queued.
 * Arguments are never converted here (a page could count the reads): a timer whose delay is not a plain number
 * counts as short.
 */
import { WORK_ASK, WORK_DUE_ASK, WORK_MARK } from "../../src/shared/messages/page-world.ts";
import type { PageTools } from "./tools.ts";

/** A timer this short may fire before the next frame. */
const SHORT_TIMER_MS = 17;
/** Events the browser dispatches in the rendering steps of a frame, or as a task after the input that caused them. */
const LATE_EVENTS = [
  "scroll",
  "scrollend",
  "resize",
  "selectionchange",
  "toggle",
  "transitionrun",
  "transitionstart",
  "transitionend",
  "transitioncancel",
  "animationstart",
  "animationiteration",
  "animationend",
  "animationcancel",
  "fullscreenchange",
  "contentvisibilityautostatechange",
];

export function installWorkRegistry(t: PageTools): void {
  const { uncurry, apply, wrap, wrapConstruct, wrapHandlers, mapGet, mapSet, addListener, preventDefault } = t;
  const { SetCtor, setAdd, setDelete, setHas, setSize } = t;
  const byTypeGet = uncurry(Map.prototype.get);
  const byTypeSet = uncurry(Map.prototype.set);
  const MapCtor = Map;
  const win = window as unknown as Record<string, any>;
  const G = globalThis as Record<string, any>;
  const late = new SetCtor<unknown>(LATE_EVENTS);
  const lateHandlers = LATE_EVENTS.map((type) => `on${type}`);

  /** Animation frame callbacks asked for and not yet run or cancelled. */
  const frames = new SetCtor<unknown>();
  /** Short timers not yet fired or cleared, and short intervals not yet cleared. */
  const timers = new SetCtor<unknown>();
  const intervals = new SetCtor<unknown>();
  /** Messages, idle callbacks and scheduled tasks posted since the mark. */
  let posted = 0;
  /** Messages posted since the mark to this window or through a MessageChannel, not yet delivered. */
  let inFlight = 0;
  const delivered = () => {
    if (inFlight > 0) inFlight--;
  };
  /** Late-event listeners: per target and type, its listeners (a property handler counts as its property's name). */
  const listeners = new WeakMap<object, Map<unknown, Set<unknown>>>();
  let listening = 0;
  /** Observers of size or visibility: per observer, how many times it was asked to observe since it was disconnected. */
  const observed = new WeakMap<object, number>();
  let observing = 0;

  const idle = () =>
    setSize(frames) === 0 && setSize(timers) === 0 && setSize(intervals) === 0 && posted === 0 && listening === 0 && observing === 0;

  const noteListener = (self: unknown, type: unknown, listener: unknown, on: boolean) => {
    const target = (self ?? win) as object;
    let types = mapGet(listeners, target);
    if (!types) mapSet(listeners, target, (types = new MapCtor()));
    let set = byTypeGet(types, type);
    if (!set) byTypeSet(types, type, (set = new SetCtor()));
    // A listener added twice is one, as the browser counts it.
    if (on === setHas(set, listener)) return;
    if (on) setAdd(set, listener);
    else setDelete(set, listener);
    listening += on ? 1 : -1;
  };
  const proto = EventTarget.prototype;
  proto.addEventListener = wrap(proto.addEventListener, (self, a) => {
    if (setHas(late, a[0]) && a[1] != null) noteListener(self, a[0], a[1], true);
  });
  proto.removeEventListener = wrap(proto.removeEventListener, (self, a) => {
    if (setHas(late, a[0]) && a[1] != null) noteListener(self, a[0], a[1], false);
  });
  wrapHandlers([HTMLElement.prototype, SVGElement.prototype, Document.prototype, win], lateHandlers, (self, prop, on) =>
    noteListener(self, prop, prop, on),
  );

  /**
   * Wraps a scheduling built-in whose callback is its first argument: the id it returns is pending (when `counts`)
   * until the callback runs (once, unless `repeats`) or the id is cancelled (`untrack`).
   */
  const track = (owner: Record<string, any>, key: string, pending: Set<unknown>, counts: (a: unknown[]) => boolean, repeats = false) => {
    const real = owner[key];
    if (typeof real !== "function") return;
    let box: { id: unknown } | null = null;
    owner[key] = wrap(
      real,
      (_self, a, id) => {
        if (box && counts(a)) {
          box.id = id;
          setAdd(pending, id);
        }
        box = null;
      },
      (_self, a) => {
        box = null;
        const cb = a[0];
        if (typeof cb !== "function") {
          // A string to evaluate (timers) is not followed: it counts as posted work.
          posted++;
          return a;
        }
        const mine = (box = { id: undefined as unknown });
        const run = function (this: unknown, ...args: unknown[]) {
          if (!repeats) setDelete(pending, mine.id);
          return apply(cb as (...x: unknown[]) => unknown, this, args);
        };
        const out: unknown[] = [run];
        for (let i = 1; i < a.length; i++) out[i] = a[i];
        return out;
      },
    );
  };
  /** Wraps a cancelling built-in: the id it is given is no longer pending in any of `pending`. */
  const untrack = (owner: Record<string, any>, key: string, ...pending: Set<unknown>[]) => {
    const real = owner[key];
    if (typeof real === "function")
      owner[key] = wrap(real, (_self, a) => {
        for (let i = 0; i < pending.length; i++) setDelete(pending[i]!, a[0]);
      });
  };
  const short = (a: unknown[]) => typeof a[1] !== "number" || !(a[1] >= SHORT_TIMER_MS);
  track(win, "requestAnimationFrame", frames, () => true);
  untrack(win, "cancelAnimationFrame", frames);
  track(win, "setTimeout", timers, short);
  track(win, "setInterval", intervals, short, true);
  // Timeouts and intervals share their ids: either call clears either.
  untrack(win, "clearTimeout", timers, intervals);
  untrack(win, "clearInterval", timers, intervals);

  /** Wraps a posting built-in; a message whose delivery bsk hears (`heard`) is in flight until then. */
  const countPosted = (owner: Record<string, any> | undefined, key: string, heard?: (self: unknown) => boolean) => {
    const real = owner?.[key];
    if (typeof real === "function")
      owner![key] = wrap(real, (self) => {
        posted++;
        if (heard?.(self)) inFlight++;
      });
  };
  countPosted(win, "postMessage", (self) => self === undefined || self === win);
  countPosted(G.MessagePort?.prototype, "postMessage", () => true);
  // Delivery is heard by a listener of bsk's own, added before any of the page's: the page's run in the same dispatch.
  apply(addListener, win, ["message", delivered, true]);
  const Channel = G.MessageChannel;
  if (typeof Channel === "function") {
    const portOf = uncurry(Object.getOwnPropertyDescriptor(Channel.prototype, "port1")!.get!);
    const port2Of = uncurry(Object.getOwnPropertyDescriptor(Channel.prototype, "port2")!.get!);
    const made = wrapConstruct(Channel, (channel) => {
      apply(addListener, portOf(channel), ["message", delivered]);
      apply(addListener, port2Of(channel), ["message", delivered]);
    });
    G.MessageChannel = made;
    Channel.prototype.constructor = made;
  }
  countPosted(G.BroadcastChannel?.prototype, "postMessage");
  countPosted(win, "requestIdleCallback");
  countPosted(G.Scheduler?.prototype, "postTask");

  for (const Observer of [G.IntersectionObserver, G.ResizeObserver]) {
    const p = Observer?.prototype as Record<string, any> | undefined;
    if (!p) continue;
    const count = (key: string, next: (n: number) => number) => {
      if (typeof p[key] !== "function") return;
      p[key] = wrap(p[key], (self) => {
        if (typeof self !== "object" || self === null) return;
        const before = mapGet(observed, self) ?? 0;
        const after = next(before);
        mapSet(observed, self, after);
        observing += after - before;
      });
    };
    // unobserve lowers nothing: which elements an observer has is not kept, and one too many only means waiting.
    count("observe", (n) => n + 1);
    count("disconnect", () => 0);
  }

  const doc = document;
  apply(addListener, doc, [
    WORK_MARK,
    () => {
      posted = 0;
      inFlight = 0;
    },
    true,
  ]);
  apply(addListener, doc, [WORK_ASK, (e: Event) => idle() && preventDefault(e), true]);
  apply(addListener, doc, [WORK_DUE_ASK, (e: Event) => (setSize(timers) > 0 || inFlight > 0) && preventDefault(e), true]);
}
