/**
 * The document's drop targets, as the drop registry in the page's world reports them (entrypoints/page-world/drops.ts,
 * src/shared/messages/drops.ts): hints, never trusted. Asked once per walk; only connected elements of this
 * document count. Elements with an ondrop/ondragover/ondragenter attribute count too (read here, not asked).
 */
import { DROP_ASK, DROP_MARK, MAX_DROP_MARKS } from "../../../shared/messages/drops.ts";

export interface DropTargets {
  /** Elements marked as drop targets (<html> and <body> are never in it: see `page`). */
  els: Set<Element>;
  /** The window, the document, <html> or <body> takes drops: the whole page is a drop zone. */
  page: boolean;
}

const DROP_ATTRS = "[ondrop],[ondragover],[ondragenter]";

export function dropTargets(doc: Document): DropTargets {
  const out: DropTargets = { els: new Set(), page: false };
  const take = (target: EventTarget | undefined) => {
    if (target === doc || target === doc.documentElement || target === doc.body) out.page = true;
    else if (isElement(target) && target.ownerDocument === doc && target.isConnected && out.els.size < MAX_DROP_MARKS) {
      out.els.add(target);
    }
  };
  // The attributes first: a page flooding the answer cannot push them past the cap.
  for (const el of doc.querySelectorAll(DROP_ATTRS)) take(el);
  const onMark = (e: Event) => take(e.composedPath()[0]);
  doc.addEventListener(DROP_MARK, onMark, true);
  try {
    doc.dispatchEvent(new (doc.defaultView ?? globalThis).Event(DROP_ASK));
  } catch {
    // Browsers keep a listener's exception in its world; a DOM without worlds (happy-dom) may throw it here.
  } finally {
    doc.removeEventListener(DROP_MARK, onMark, true);
  }
  return out;
}

/** A node of this world (the page cannot hand over anything else: what crosses worlds is the DOM). */
function isElement(t: EventTarget | undefined): t is Element {
  return t != null && (t as Node).nodeType === 1;
}
