/**
 * globalThis.__bsk in bsk's isolated world of one document. The worker calls these through
 * Runtime.callFunctionOn; values cross as one string or one element, never as object graphs.
 */
import { nameOf, roleOf } from "./aria.ts";
import { disambiguate } from "./context.ts";
import { dropTargets } from "./drops.ts";
import { emit, type Line } from "./emit.ts";
import { RefRegistry } from "./identity.ts";
import { coveredControls, findModal } from "./modal.ts";
import { HoverProbe } from "./probe.ts";
import { queryDeep } from "./query.ts";
import { Walker } from "./walk.ts";

export interface WalkRequest {
  session: string;
  /** The session's ref counter: new refs are numbered from here. */
  next: number;
  viewport: boolean;
  /** Options listed per select (default 10; the selected ones always). */
  maxOptions?: number;
}

/** What one frame's walk returns (as one JSON string). */
export interface FrameWalk {
  url: string;
  title: string;
  lines: Line[];
  /** [ref number, role, name] of every ref printed. */
  refs: [number, string, string][];
  next: number;
  /** Set when a modal dialog is the active layer: controls of the page it covers. */
  modal: { covered: number } | null;
  ms: number;
}

export interface PageRuntime {
  /** Random per world, so per document: a ref recorded with another token belongs to another document. */
  doc: string;
  registry(session: string): RefRegistry;
  /** The element numbered `n` for `session`, or why not ("unknown" | "gone" | "detached"). */
  resolve(session: string, n: number): Element | string;
  /** The one element matching `selector`, else JSON `{count}` or `{error}`. */
  query(selector: string): Element | string;
  /** JSON [role, name] of an element. */
  describe(el: Element): string;
  /** JSON FrameWalk of this document. */
  snapshot(request: WalkRequest): string;
  /** Index of an iframe element in the last snapshot's frames, -1 if it was not in it. */
  frameIndex(el: Element): number;
  /** Hover probing: JSON [[x, y], …] of candidate triggers (and the visible controls before hovering). */
  probe(max: number): string;
  /** After the mouse moved onto candidate `i` (two frames later): JSON {lines, refs, next}. */
  revealed(session: string, next: number, i: number): Promise<string>;
}

/** Two animation frames (style and layout caught up), or 100 ms where frames do not run (a hidden tab). */
function settled(win: Window): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    win.requestAnimationFrame(() =>
      win.requestAnimationFrame(() => {
        clearTimeout(timer);
        resolve();
      }),
    );
  });
}

function token(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function walkDocument(doc: Document, registry: RefRegistry, request: WalkRequest): { walk: FrameWalk; frames: Element[] } {
  const t0 = performance.now();
  registry.reserveFrom(request.next);
  const drops = dropTargets(doc);
  const walker = new Walker(doc.defaultView!, { registry, viewport: request.viewport, drops: drops.els, maxOptions: request.maxOptions });
  const modal = findModal(doc);
  // A page-wide drop zone (a listener on the window, document, <html> or <body>) is said once, first.
  const page = doc.body ?? doc.documentElement;
  const wide = drops.page && !modal && page ? walker.pageDrop(page) : null;
  const roots = walker.walk(modal ?? doc);
  if (wide) roots.unshift(wide);
  disambiguate(walker.actionable);
  const lines = emit(roots);
  const walk: FrameWalk = {
    url: doc.location?.href ?? "",
    title: doc.title,
    lines,
    refs: walker.refs,
    next: registry.nextNumber,
    modal: modal ? { covered: coveredControls(doc, modal) } : null,
    ms: 0,
  };
  walk.ms = Math.round((performance.now() - t0) * 10) / 10;
  return { walk, frames: walker.frames };
}

export function createRuntime(doc: Document): PageRuntime {
  let lastFrames: Element[] = [];
  let prober: HoverProbe | null = null;
  const registries = new Map<string, RefRegistry>();
  const registry = (session: string) => {
    let r = registries.get(session);
    if (!r) registries.set(session, (r = new RefRegistry()));
    return r;
  };
  return {
    doc: token(),
    registry,
    resolve: (session, n) => registry(session).lookup(n),
    query(selector) {
      let found: Element[];
      try {
        found = queryDeep(doc, selector);
      } catch (err) {
        return JSON.stringify({ error: err instanceof Error ? err.message : String(err) });
      }
      return found.length === 1 ? found[0]! : JSON.stringify({ count: found.length });
    },
    describe: (el) => JSON.stringify([roleOf(el), nameOf(el)]),
    snapshot(request) {
      const { walk, frames } = walkDocument(doc, registry(request.session), request);
      lastFrames = frames;
      return JSON.stringify(walk);
    },
    frameIndex: (el) => lastFrames.indexOf(el),
    probe(max) {
      prober = new HoverProbe(doc);
      return prober.find(max);
    },
    async revealed(session, next, i) {
      await settled(doc.defaultView!);
      const r = registry(session);
      r.reserveFrom(next);
      const out = prober ? prober.revealed(i, r) : { lines: [], refs: [] };
      return JSON.stringify({ ...out, next: r.nextNumber });
    },
  };
}

export function installRuntime(): void {
  const g = globalThis as { __bsk?: PageRuntime };
  g.__bsk ??= createRuntime(document);
}
