/**
 * Duplicate names made distinguishable: controls sharing role and name get the nearest context that tells them
 * apart — their row, list item, card heading, section or label — as `in: row "Zhang San"`; `nth=K` when none does.
 */
import { normalize } from "./aria.ts";
import { clip, quote } from "./facts.ts";
import type { SNode } from "./walk.ts";

const CONTEXT_MAX = 40;

function parentOf(el: Element): Element | null {
  if (el.parentElement) return el.parentElement;
  const root = el.parentNode as ShadowRoot | null;
  return root && "host" in root ? root.host : null;
}

const ROW = "tr,[role=row]";
const CELL = "td,th,[role=cell],[role=gridcell],[role=rowheader],[role=columnheader]";
const HEADING = "h1,h2,h3,h4,h5,h6,[role=heading]";

function firstText(root: Element, skip: Element): string {
  const doc = root.ownerDocument;
  const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (skip.contains(n)) continue;
    const parent = n.parentElement;
    if (parent && /^(script|style|noscript|template)$/.test(parent.localName)) continue;
    const t = normalize(n.textContent ?? "");
    if (t) return t;
  }
  return "";
}

const ROLE_WORD: Record<string, string> = {
  li: "item",
  article: "article",
  section: "section",
  form: "form",
  fieldset: "group",
  dialog: "dialog",
};

/** The label a container gives to `el`, or "" when it has none that is not `el`'s own text. */
function labelOf(container: Element, el: Element, ownName: string): string {
  const named = container.getAttribute("aria-label")?.trim();
  const word = ROLE_WORD[container.localName] ?? container.getAttribute("role") ?? "";
  const show = (text: string) => {
    const t = clip(text, CONTEXT_MAX);
    return t && t !== ownName ? (word ? `${word} ${quote(t)}` : quote(t)) : "";
  };
  if (container.matches(ROW)) {
    for (const cell of container.querySelectorAll(CELL)) {
      if (cell.contains(el)) continue;
      const t = normalize(cell.textContent ?? "");
      if (t) return `row ${quote(clip(t, CONTEXT_MAX))}`;
    }
    return "";
  }
  if (named) return show(named);
  if (container.localName === "fieldset") {
    const legend = container.querySelector(":scope > legend");
    if (legend) return show(normalize(legend.textContent ?? ""));
  }
  for (const h of container.querySelectorAll(HEADING)) {
    if (h.contains(el)) continue;
    const t = normalize(h.textContent ?? "");
    if (t) return show(t);
  }
  if (container.matches(CELL)) return "";
  return show(firstText(container, el));
}

export function disambiguate(nodes: SNode[]): void {
  const groups = new Map<string, SNode[]>();
  for (const n of nodes) {
    const key = `${n.role}\u0000${n.name}`;
    const g = groups.get(key);
    if (g) g.push(n);
    else groups.set(key, [n]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    // How many members each ancestor holds: context must come from an ancestor holding only this one.
    const holds = new Map<Element, number>();
    for (const n of group) for (let a = parentOf(n.el!); a; a = parentOf(a)) holds.set(a, (holds.get(a) ?? 0) + 1);
    const labels = group.map((n) => {
      for (let a = parentOf(n.el!); a && holds.get(a) === 1; a = parentOf(a)) {
        const label = labelOf(a, n.el!, n.name);
        if (label) return label;
      }
      return "";
    });
    const count = new Map<string, number>();
    for (const l of labels) count.set(l, (count.get(l) ?? 0) + 1);
    group.forEach((n, i) => {
      const l = labels[i]!;
      if (l && count.get(l) === 1) n.facts.push(`in: ${l}`);
      else n.facts.push(`nth=${i + 1}`);
    });
  }
}
