/**
 * The walk: one pass over the DOM (open shadow roots and slots included, in rendering order) that keeps what an
 * agent needs — controls with refs, headings, landmarks, dialogs, tables, text — and drops wrappers.
 * Roles and names follow WAI-ARIA/accname (aria.ts); form state and ARIA states come from the DOM (facts.ts).
 */
import { nameOf, normalize, roleOf } from "./aria.ts";
import { clip, factsOf } from "./facts.ts";
import type { RefRegistry } from "./identity.ts";

export interface SNode {
  /** An ARIA role, "text" for static text, "clickable" for a control recovered from DOM facts. */
  role: string;
  name: string;
  el?: Element;
  ref?: number;
  facts: string[];
  children: SNode[];
  /** Intersects the viewport (only computed when asked for). */
  vis: boolean;
  /** Index into Walker.frames for an iframe's node. */
  frame?: number;
}

/** Roles an agent acts on: they get refs. */
export const ACTIONABLE = new Set([
  "button",
  "link",
  "textbox",
  "searchbox",
  "checkbox",
  "radio",
  "combobox",
  "listbox",
  "option",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "switch",
  "slider",
  "spinbutton",
  "treeitem",
  "clickable",
]);

/** Roles whose name is their content: their text children are not printed again. */
const NAME_FROM_CONTENT = new Set([
  "button",
  "link",
  "checkbox",
  "radio",
  "option",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "switch",
  "treeitem",
  "heading",
  "tooltip",
]);

/** Non-actionable roles worth a line of their own. */
const STRUCTURE = new Set([
  "heading",
  "dialog",
  "alertdialog",
  "navigation",
  "main",
  "banner",
  "contentinfo",
  "complementary",
  "region",
  "form",
  "search",
  "table",
  "grid",
  "treegrid",
  "row",
  "group",
  "img",
  "alert",
  "status",
  "tree",
  "menu",
  "menubar",
  "tablist",
  "radiogroup",
  "tooltip",
  "article",
  "log",
  "marquee",
  "timer",
  "progressbar",
  "meter",
  "tabpanel",
]);

/** Structure printed only when it has a name (otherwise its content is enough). */
const ONLY_NAMED = new Set(["group", "img", "status", "article", "tabpanel", "region", "form"]);

const SKIP_TAGS = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "head",
  "meta",
  "link",
  "title",
  "base",
  "datalist",
  "option",
  "optgroup",
]);

const TEXT_MAX = 400;
const CLICKABLE_NAME_MAX = 60;

type Item = SNode | { t: string; vis: boolean } | null; // null: a block boundary

function isText(i: Item): i is { t: string; vis: boolean } {
  return i !== null && "t" in i;
}

export interface WalkOptions {
  registry: RefRegistry;
  /** Compute `vis` (costs a layout read per element). */
  viewport: boolean;
}

export class Walker {
  readonly frames: Element[] = [];
  readonly refs: [number, string, string][] = [];
  /** Nodes with refs, in document order, for disambiguation. */
  readonly actionable: SNode[] = [];
  private readonly vw: number;
  private readonly vh: number;

  constructor(
    private readonly win: Window,
    private readonly opts: WalkOptions,
  ) {
    this.vw = win.innerWidth;
    this.vh = win.innerHeight;
  }

  /** Walks `root` itself (an element) or the children of a document. */
  walk(root: Element | Document): SNode[] {
    const items: Item[] = [];
    if (root.nodeType === 9) this.children(root, items, false, "auto");
    else this.element(root as Element, items, false, "auto");
    return merge(items);
  }

  private visible(el: Element): boolean {
    if (!this.opts.viewport) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < this.vh && r.left < this.vw;
  }

  private children(parent: Node, items: Item[], vis: boolean, cursor: string): void {
    const host = parent as Element;
    let kids: ArrayLike<Node> = parent.childNodes;
    if (host.shadowRoot) kids = host.shadowRoot.childNodes;
    else if (host.localName === "slot") {
      const assigned = (host as HTMLSlotElement).assignedNodes({ flatten: true });
      if (assigned.length) kids = assigned;
    }
    // A closed <details> renders only its summary.
    const closed = host.localName === "details" && !(host as HTMLDetailsElement).open;
    for (let i = 0; i < kids.length; i++) {
      const n = kids[i]!;
      if (closed && (n.nodeType !== 1 || (n as Element).localName !== "summary")) continue;
      if (n.nodeType === 3) {
        const t = (n as Text).data;
        if (t) items.push({ t, vis });
      } else if (n.nodeType === 1) {
        this.element(n as Element, items, vis, cursor);
      }
    }
  }

  private element(el: Element, items: Item[], parentVis: boolean, parentCursor: string): void {
    const tag = el.localName;
    if (SKIP_TAGS.has(tag)) return;
    if (el.getAttribute("aria-hidden") === "true") return;
    const style = this.win.getComputedStyle(el);
    const display = style.display;
    if (display === "none") return;
    if (tag === "svg") return this.svg(el, items);
    const vis = this.opts.viewport ? (display === "contents" ? parentVis : this.visible(el)) : false;
    if (style.visibility === "hidden" || style.visibility === "collapse") {
      // Hidden itself; a descendant may still be visible (visibility is overridable), text is not.
      const sub: Item[] = [];
      this.children(el, sub, vis, style.cursor);
      for (const i of sub) if (i && !isText(i)) items.push(i);
      return;
    }
    const inline = display.startsWith("inline") || display === "contents" || display === "";
    let role = roleOf(el);
    if (!ACTIONABLE.has(role) && isCustomControl(el, role, style.cursor, parentCursor)) {
      role = (el as HTMLElement).isContentEditable ? "textbox" : "clickable";
    }
    if (tag === "iframe" || tag === "frame") {
      const node = this.node(
        el,
        "iframe",
        vis,
        (el.getAttribute("title") || el.getAttribute("aria-label") || el.getAttribute("name") || "").trim(),
      );
      node.frame = this.frames.push(el) - 1;
      // A ref, so `evaluate --frame @eN` (and screenshots) can name the frame.
      node.ref = this.opts.registry.assign(el);
      this.refs.push([node.ref, "iframe", node.name]);
      items.push(null, node, null);
      return;
    }
    if (ACTIONABLE.has(role)) {
      items.push(this.control(el, role, vis, style.cursor));
      return;
    }
    if (STRUCTURE.has(role)) {
      const name = role === "row" ? "" : nameOf(el);
      if (!ONLY_NAMED.has(role) || name) {
        const node = this.node(el, role, vis, name);
        const sub: Item[] = [];
        this.children(el, sub, vis, style.cursor);
        if (role === "row") node.name = rowText(sub);
        node.children = merge(role === "row" || role === "img" || role === "heading" ? sub.filter((i) => i && !isText(i)) : sub);
        items.push(null, node, null);
        return;
      }
    }
    if (!inline) items.push(null);
    if (labelsAControl(el) || (tag === "legend" && el.parentElement?.localName === "fieldset") || tag === "caption") {
      // Their text is the name of a control / group / table, printed there.
      const sub: Item[] = [];
      this.children(el, sub, vis, style.cursor);
      for (const i of sub) if (i && !isText(i)) items.push(i);
    } else {
      this.children(el, items, vis, style.cursor);
    }
    if (!inline) items.push(null);
  }

  private node(el: Element, role: string, vis: boolean, name: string): SNode {
    return { role, name: clip(name, 120), el, facts: role === "text" ? [] : factsOf(el, role), children: [], vis };
  }

  private control(el: Element, role: string, vis: boolean, cursor: string): SNode {
    let name: string;
    if (role === "clickable") name = clip(normalize(el.textContent ?? ""), CLICKABLE_NAME_MAX) || (el.getAttribute("title") ?? "");
    else name = nameOf(el);
    const node = this.node(el, role, vis, name);
    const placeholder = el.getAttribute("placeholder")?.trim();
    if (placeholder && (!node.name || node.name === placeholder)) {
      node.name = clip(placeholder, 120);
      node.facts = node.facts.filter((f) => !f.startsWith("placeholder="));
    }
    const n = this.opts.registry.assign(el);
    node.ref = n;
    this.refs.push([n, role, node.name]);
    this.actionable.push(node);
    const sub: Item[] = [];
    this.children(el, sub, vis, cursor);
    const contentIsName = NAME_FROM_CONTENT.has(role) || (role === "clickable" && (el.textContent ?? "").length <= CLICKABLE_NAME_MAX);
    node.children = merge(contentIsName || role === "textbox" ? sub.filter((i) => i && !isText(i)) : sub);
    return node;
  }

  private svg(el: Element, items: Item[]): void {
    const label = el.getAttribute("aria-label") || el.querySelector(":scope > title")?.textContent || "";
    if (el.getAttribute("role") === "img" && label.trim()) items.push(this.node(el, "img", this.visible(el), normalize(label)));
  }
}

/**
 * A control the accessibility tree may miss: pointer cursor set here (not inherited), onclick, tabindex,
 * contenteditable, or an explicit draggable="true" (a drag source is something to act on).
 */
function isCustomControl(el: Element, role: string, cursor: string, parentCursor: string): boolean {
  if (role === "heading" || role === "iframe") return false;
  const h = el as HTMLElement;
  if (h.isContentEditable) return !(el.parentElement as HTMLElement | null)?.isContentEditable;
  if (el.hasAttribute("onclick") || el.getAttribute("draggable") === "true") return true;
  if (cursor === "pointer" && parentCursor !== "pointer") return !labelsAControl(el) && el.localName !== "label";
  const tabindex = el.getAttribute("tabindex");
  return tabindex !== null && Number(tabindex) >= 0 && !el.matches("a[href],button,input,select,textarea,summary,iframe");
}

function labelsAControl(el: Element): boolean {
  return el.localName === "label" && (el as HTMLLabelElement).control != null;
}

/** A table row's text: its cells' text, ` | ` between cells. */
function rowText(items: Item[]): string {
  const cells: string[] = [];
  let cur = "";
  for (const i of items) {
    if (i === null) {
      if (cur.trim()) cells.push(normalize(cur));
      cur = "";
    } else if (isText(i)) cur += i.t;
  }
  if (cur.trim()) cells.push(normalize(cur));
  return cells.join(" | ");
}

/** Items → nodes: adjacent text joins into one line (whitespace collapsed), block boundaries split lines. */
export function merge(items: Item[]): SNode[] {
  const out: SNode[] = [];
  let text = "";
  let vis = false;
  const flush = () => {
    const t = normalize(text);
    if (t) out.push({ role: "text", name: clip(t, TEXT_MAX), facts: [], children: [], vis });
    text = "";
    vis = false;
  };
  for (const i of items) {
    if (i === null) flush();
    else if (isText(i)) {
      text += i.t;
      vis ||= i.vis;
    } else {
      flush();
      out.push(i);
    }
  }
  flush();
  return out;
}
