/**
 * The walk: one pass over the DOM (open shadow roots and slots included, in rendering order) that keeps what an
 * agent needs — controls with refs, headings, landmarks, dialogs, tables, text — and drops wrappers.
 * Roles and names follow WAI-ARIA/accname (aria.ts); form state and ARIA states come from the DOM (facts.ts).
 */
import { nameOf, normalize, roleOf } from "./aria.ts";
import { clip, factsOf, quote } from "./facts.ts";
import { hintOf } from "./hint.ts";
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
  /** Printed bare after the role (a visual control's size, `640×480`). */
  size?: string;
  /** The controls sharing this one's role and name, itself included (context.ts), when there are others. */
  namesakes?: SNode[];
  /** The line as it reads alone (with the `in:`/`nth=` label the tree made unneeded): for find and --diff. */
  alone?: string;
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
  /** Elements with drop, dragover or dragenter listeners (drops.ts): drop targets. */
  drops?: ReadonlySet<Element>;
  /** How many options of a select to list (the selected ones are always listed). */
  maxOptions?: number;
}

/** Elements that print as their kind and size when nothing names them. */
const VISUAL = /^(canvas|img|svg|video|picture|object|embed)$/;

export class Walker {
  readonly frames: Element[] = [];
  readonly refs: [number, string, string][] = [];
  /** Nodes with refs, in document order, for disambiguation. */
  readonly actionable: SNode[] = [];
  private readonly vw: number;
  private readonly vh: number;
  /** Elements whose text names a control through its aria-labelledby: said on the control, not again. */
  private labels = new Set<Element>();

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
    this.labels = labelledByTargets(root.nodeType === 9 ? (root as Document) : (root as Element).ownerDocument, this.opts);
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
    if (tag === "svg" && !this.opts.drops?.has(el) && !isCustomControl(el, "img", style.cursor, parentCursor)) return this.svg(el, items);
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
    if (!ACTIONABLE.has(role) && (isCustomControl(el, role, style.cursor, parentCursor) || (tag === "canvas" && hasBox(el)))) {
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
    if (this.opts.drops?.has(el)) {
      // A drop target the accessibility tree says nothing about: a ref, so upload --mode drop and drag can name it.
      items.push(null, this.control(el, role === "generic" ? "group" : role, vis, style.cursor), null);
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
    if (
      labelsAControl(el) ||
      this.labels.has(el) ||
      (tag === "legend" && el.parentElement?.localName === "fieldset") ||
      tag === "caption"
    ) {
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
    return { role, name: clip(name, 120), el, facts: role === "text" ? [] : factsOf(el, role, this.opts.maxOptions), children: [], vis };
  }

  private control(el: Element, role: string, vis: boolean, cursor: string): SNode {
    const drop = this.opts.drops?.has(el) === true;
    // Named by its text like a clickable: a drop target the page gave no role.
    const byText =
      role === "clickable" || (drop && !ACTIONABLE.has(role) && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby"));
    const node = this.node(el, role, vis, "");
    // The ref first, so a container's number comes before its content's, as in document order.
    const n = this.opts.registry.assign(el);
    node.ref = n;
    const entry = this.refs.push([n, role, ""]) - 1;
    this.actionable.push(node);
    const sub: Item[] = [];
    this.children(el, sub, vis, cursor);
    // What is shown of it: hidden content says nothing, blocks are words apart, controls inside name themselves.
    const shown = shownText(sub);
    const holdsControls = sub.some(holdsRef);
    let name: string;
    /** Its children, when naming it already took one of them. */
    let kids: SNode[] | null = null;
    if (byText) {
      name = shown;
      if (shown.length > CLICKABLE_NAME_MAX) {
        // Too long for a name (a mail in a list, a card): its first line names it, the rest stays below, said once.
        kids = merge(sub);
        const first = kids.findIndex((k) => k.role === "text");
        name = first >= 0 && kids[first]!.name.length <= CLICKABLE_NAME_MAX ? kids.splice(first, 1)[0]!.name : "";
      }
      name ||= el.getAttribute("title") ?? "";
    } else if (holdsControls && NAME_FROM_CONTENT.has(role) && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby")) {
      // An open tree folder, a menu item holding its submenu: its own words, not the names of the refs inside.
      name = shown || (el.getAttribute("title") ?? "");
    } else name = nameOf(el);
    if (!name && role === "clickable" && !holdsControls) name = nameOf(el);
    node.name = clip(name, 120);
    const placeholder = el.getAttribute("placeholder")?.trim();
    if (placeholder && (!node.name || node.name === placeholder)) {
      node.name = clip(placeholder, 120);
      node.facts = node.facts.filter((f) => !f.startsWith("placeholder="));
    }
    if (el.localName === "input" && (el as HTMLInputElement).type === "file" && !node.name) {
      // What Chromium's accessibility tree calls the button of an unlabelled file input.
      node.name = (el as HTMLInputElement).multiple ? "Choose Files" : "Choose File";
    }
    const hint = !node.name && !shown && !holdsControls && !/^(canvas|video)$/.test(el.localName) ? hintOf(el) : "";
    if (role === "clickable" && (VISUAL.test(el.localName) || (!node.name && !hint))) {
      // A picture, a canvas or an unnamed box: its kind and size say what it is.
      node.role = el.localName;
      const box = el.getBoundingClientRect();
      node.size = `${Math.round(box.width)}×${Math.round(box.height)}`;
    }
    if ((role === "button" || role === "combobox") && /^(listbox|menu|true)$/.test(el.getAttribute("aria-haspopup") ?? "")) {
      currentChoice(el, node);
    }
    if (drop) node.facts.push("drop");
    // A hint is for icons; a surface (a canvas, a video) is said by its kind and size.
    if (hint) node.facts.push(`hint: ${hint}`);
    this.refs[entry] = [n, node.role, node.name || node.size || hint];
    const contentIsName =
      NAME_FROM_CONTENT.has(role) || (byText && shown.length <= CLICKABLE_NAME_MAX) || node.facts[0]?.startsWith("value=");
    node.children = kids ?? merge(contentIsName || role === "textbox" ? sub.filter((i) => i && !isText(i)) : sub);
    return node;
  }

  /** The whole page takes drops: one `document @eN [drop]` line, its ref on <body>, where a drop lands. */
  pageDrop(el: Element): SNode {
    const node: SNode = { role: "document", name: "", el, facts: ["drop"], children: [], vis: true };
    node.ref = this.opts.registry.assign(el);
    this.refs.push([node.ref, "document", ""]);
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

/**
 * A custom select (a button or non-input combobox opening a listbox) shows its current choice as its text: printed
 * as the value, the label as the name (`button "Plan" [value="Pro"]`), the choice left out of a name that took it in.
 */
function currentChoice(el: Element, node: SNode): void {
  const tag = el.localName;
  if (tag === "input" || tag === "select" || tag === "textarea") return;
  const own = normalize(el.textContent ?? "");
  if (!own || own === node.name || node.facts.some((f) => f.startsWith("value="))) return;
  if (node.name.endsWith(` ${own}`)) node.name = node.name.slice(0, -own.length - 1);
  else if (node.name.startsWith(`${own} `)) node.name = node.name.slice(own.length + 1);
  node.facts.unshift(`value=${quote(clip(own, 80))}`);
}

/** The elements an actionable element's aria-labelledby points at (not its own content, not its containers). */
function labelledByTargets(doc: Document, opts: WalkOptions): Set<Element> {
  const out = new Set<Element>();
  for (const el of doc.querySelectorAll("[aria-labelledby]")) {
    if (!ACTIONABLE.has(roleOf(el)) && !opts.drops?.has(el)) continue;
    for (const id of (el.getAttribute("aria-labelledby") ?? "").split(/\s+/)) {
      const target = id ? doc.getElementById(id) : null;
      if (target && !target.contains(el) && !el.contains(target)) out.add(target);
    }
  }
  return out;
}

function hasBox(el: Element): boolean {
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

function labelsAControl(el: Element): boolean {
  return el.localName === "label" && (el as HTMLLabelElement).control != null;
}

/** The text an element shows around the controls inside it: hidden text is not in `items`, blocks are words apart. */
function shownText(items: Item[]): string {
  let out = "";
  for (const i of items) {
    if (i === null) out += " ";
    else if (isText(i)) out += i.t;
    else out += ` ${nodeText(i)} `;
  }
  return normalize(out);
}

function nodeText(n: SNode): string {
  if (n.ref !== undefined) return "";
  if (n.role === "text") return n.name;
  const inner = normalize(n.children.map(nodeText).join(" "));
  return inner.startsWith(n.name) ? inner : `${n.name} ${inner}`;
}

function holdsRef(i: Item): boolean {
  return i !== null && !isText(i) && (i.ref !== undefined || i.children.some(holdsRef));
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
