/**
 * Duplicate names made distinguishable: controls sharing role and name get the nearest context that tells them
 * apart — their row, list item, card heading, section or label — as `in: row "Zhang San"`; `nth=K` when none does.
 */
import { nameOf, normalize, roleOf } from "./aria.ts";
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

/** Labels up an element's chain, from its parent to (not past) the first ancestor holding another member. */
const CHAIN_MAX = 8;

/**
 * Each member's context: the first label up its chain that no other member's chain has — so a card's title wins
 * over a first label every card repeats ("Use as default") — or "" when none does.
 */
export function contexts(els: readonly Element[], names: readonly string[]): string[] {
  const holds = new Map<Element, number>();
  for (const el of els) for (let a = parentOf(el); a; a = parentOf(a)) holds.set(a, (holds.get(a) ?? 0) + 1);
  const chains = els.map((el, i) => {
    const out: string[] = [];
    for (let a = parentOf(el); a && holds.get(a) === 1 && out.length < CHAIN_MAX; a = parentOf(a)) {
      const label = labelOf(a, el, names[i]!);
      if (label && !out.includes(label)) out.push(label);
    }
    return out;
  });
  const chainsWith = new Map<string, number>();
  for (const c of chains) for (const l of c) chainsWith.set(l, (chainsWith.get(l) ?? 0) + 1);
  return chains.map((c) => c.find((l) => chainsWith.get(l) === 1) ?? "");
}

export function disambiguate(nodes: SNode[]): void {
  const groups = new Map<string, SNode[]>();
  for (const n of nodes) {
    // A hint (hint.ts) tells unnamed icons apart as well as a name does.
    const key = `${n.role}\u0000${n.name}\u0000${n.size ?? ""}\u0000${n.facts.find((f) => f.startsWith("hint: ")) ?? ""}`;
    const g = groups.get(key);
    if (g) g.push(n);
    else groups.set(key, [n]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const labels = contexts(
      group.map((n) => n.el!),
      group.map((n) => n.name),
    );
    group.forEach((n, i) => {
      n.facts.push(labels[i] ? `in: ${labels[i]}` : `nth=${i + 1}`);
      n.namesakes = group;
    });
  }
}

/**
 * The context the snapshot prints for `el` among the visible elements of its document sharing its role and name
 * (the recorder's view of one element): `in: …`, `nth=K`, or "" when its role and name are unique.
 */
export function contextOf(el: Element, role: string, name: string): string {
  const root = el.getRootNode() as Document | ShadowRoot;
  const same = [...root.querySelectorAll(el.localName)].filter(
    (o) => o === el || (o.checkVisibility?.() !== false && roleOf(o) === role && nameOf(o) === name),
  );
  if (same.length < 2) return "";
  const i = same.indexOf(el);
  const label = contexts(
    same,
    same.map(() => name),
  )[i];
  return label ? `in: ${label}` : `nth=${i + 1}`;
}
