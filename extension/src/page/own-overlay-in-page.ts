/**
 * In one of bsk's worlds of a document (the page runtime's, the recorder's): which element is bsk's own overlay host.
 * Never decided by a name: a page can make a <bsk-overlay> of its own, even wrap its buttons in one. The worker finds
 * the real host through CDP and hands the element itself over (`told`, from own-overlay.ts); the name only says which
 * elements are worth asking about. Bundled into the page runtime and the recorder; the worker reaches it as
 * globalThis[OWN_OVERLAY_GLOBAL] of that world, which the page's own scripts cannot see.
 */
import { OVERLAY_TAG } from "../shared/messages/overlay.ts";

export const OWN_OVERLAY_GLOBAL = "__bskOwnOverlay";

/** "ask": of the overlay's name and not known either way yet: the worker is to be asked (`told`), then again. */
export type Whose = "own" | "page" | "ask";

export interface OwnOverlay {
  /** Whose `el` is; with `decide`, one still unknown counts as the page's. An "ask" is numbered (`asked`). */
  whose(el: EventTarget | null, decide?: boolean): Whose;
  /** The number of an element `whose` answered "ask" for (the recorder's step names it to the worker). */
  asked(el: Element): number;
  /** The worker's word: `host` is bsk's (null: there is none); every element asked about so far is settled. */
  told(host: Element | null): void;
  /** Whether the element asked about as number `n` was bsk's host (once told). */
  wasOwn(n: number): boolean;
}

/** The rules, with no global of their own (unit-tested): `top` says whether this is a tab's top document. */
export function ownOverlayRules(top: boolean): OwnOverlay {
  let host: Element | null = null;
  const pages = new WeakSet<Element>();
  const pending = new Map<Element, number>();
  const answers = new Map<number, boolean>();
  let next = 0;
  return {
    whose(target, decide = false) {
      const el = target as Element | null;
      if (el?.nodeType !== 1) return "page";
      if (el === host) return "own";
      // The overlay draws only in a tab's top document.
      if (!top || el.localName !== OVERLAY_TAG || pages.has(el)) return "page";
      // One host per document: while bsk's is in it, another of that name is the page's.
      if (decide || host?.isConnected) return "page";
      if (!pending.has(el)) pending.set(el, ++next);
      return "ask";
    },
    asked: (el) => pending.get(el) ?? 0,
    told(found) {
      host = found;
      for (const [el, n] of pending) {
        answers.set(n, el === found);
        if (el !== found) pages.add(el);
      }
      pending.clear();
    },
    // Kept: several steps can name one element (a double click), and only elements asked about are in it.
    wasOwn: (n) => answers.get(n) === true,
  };
}

/** globalThis[OWN_OVERLAY_GLOBAL] of this world, made once. */
export function installOwnOverlay(): OwnOverlay {
  const g = globalThis as Record<string, unknown>;
  const had = g[OWN_OVERLAY_GLOBAL] as OwnOverlay | undefined;
  if (had) return had;
  const own = ownOverlayRules(window.top === window);
  Object.defineProperty(g, OWN_OVERLAY_GLOBAL, { value: own });
  return own;
}
