/**
 * Page side of observe --probe-hover: which elements are worth hovering (triggers of CSS :hover rules that show
 * something, aria-haspopup), and what became visible after hovering one.
 */
import { nameOf, normalize, roleOf } from "./aria.ts";
import { lineOf } from "./emit.ts";
import { clip, factsOf } from "./facts.ts";
import type { RefRegistry } from "./identity.ts";
import { CONTROLS } from "./modal.ts";
import { ACTIONABLE } from "./walk.ts";

const REVEALING = ["display", "visibility", "opacity", "max-height", "height", "transform", "clip", "clip-path", "pointer-events"];

function shown(el: Element): boolean {
  const check = (el as HTMLElement).checkVisibility;
  if (typeof check === "function" && !check.call(el, { visibilityProperty: true, opacityProperty: true })) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

/** Selectors of elements whose :hover shows a descendant or sibling (`.menu:hover .items` → `.menu`). */
function hoverTriggers(doc: Document): string[] {
  const out = new Set<string>();
  const visit = (rules: CSSRuleList) => {
    for (const rule of rules) {
      if ("cssRules" in rule && (rule as CSSGroupingRule).cssRules && !(rule instanceof CSSStyleRule)) {
        visit((rule as CSSGroupingRule).cssRules);
        continue;
      }
      if (!(rule instanceof CSSStyleRule) || !rule.selectorText.includes(":hover")) continue;
      if (!REVEALING.some((p) => rule.style.getPropertyValue(p))) continue;
      for (const sel of rule.selectorText.split(",")) {
        const at = sel.indexOf(":hover");
        if (at < 0) continue;
        const rest = sel.slice(at + 6);
        // Only rules that style something else than the hovered element itself.
        if (!/^[^\s>+~]*[\s>+~]+\S/.test(rest)) continue;
        const trigger = sel.slice(0, at).trim();
        if (trigger) out.add(trigger.replace(/:hover/g, ""));
      }
    }
  };
  for (const sheet of doc.styleSheets) {
    try {
      visit(sheet.cssRules);
    } catch {
      /* a cross-origin stylesheet cannot be read */
    }
  }
  return [...out];
}

export class HoverProbe {
  private candidates: Element[] = [];
  /** Triggers' visible text before hovering (their hidden menu is not part of it). */
  private names: string[] = [];
  private before = new Set<Element>();

  constructor(private readonly doc: Document) {}

  /** Up to `max` visible triggers in the viewport: JSON [[x, y], …] of their centres. */
  find(max: number): string {
    const found = new Set<Element>();
    const add = (el: Element) => {
      if (found.size < max && shown(el)) found.add(el);
    };
    for (const sel of hoverTriggers(this.doc)) {
      try {
        for (const el of this.doc.querySelectorAll(sel)) add(el);
      } catch {
        /* a selector the engine does not take outside its sheet */
      }
    }
    for (const el of this.doc.querySelectorAll('[aria-haspopup]:not([aria-haspopup="false"])')) add(el);
    const vw = this.doc.defaultView!.innerWidth;
    const vh = this.doc.defaultView!.innerHeight;
    this.candidates = [...found].filter((el) => {
      const r = el.getBoundingClientRect();
      const x = r.left + Math.min(r.width / 2, 20);
      return x >= 0 && x < vw && r.top + r.height / 2 >= 0 && r.top + r.height / 2 < vh;
    });
    this.before = this.visibleControls();
    this.names = this.candidates.map((el) => clip(normalize((el as HTMLElement).innerText ?? el.textContent ?? ""), 60));
    return JSON.stringify(
      this.candidates.map((el) => {
        const r = el.getBoundingClientRect();
        // Near the left edge of wide triggers: the text, not the middle of a full-width bar.
        return [r.left + Math.min(r.width / 2, 20), r.top + r.height / 2];
      }),
    );
  }

  private visibleControls(): Set<Element> {
    const out = new Set<Element>();
    for (const el of this.doc.querySelectorAll(CONTROLS)) if (shown(el)) out.add(el);
    return out;
  }

  /** After hovering candidate `i`: lines for the trigger and the controls it revealed, with refs. */
  revealed(i: number, registry: RefRegistry): { lines: string[]; refs: [number, string, string][] } {
    const trigger = this.candidates[i];
    if (!trigger) return { lines: [], refs: [] };
    const refs: [number, string, string][] = [];
    const line = (el: Element, fallbackRole: string, knownName?: string) => {
      let role = roleOf(el);
      if (!ACTIONABLE.has(role)) role = fallbackRole;
      const name = knownName ?? (nameOf(el) || clip(normalize(el.textContent ?? ""), 60));
      const n = registry.assign(el);
      refs.push([n, role, name]);
      return lineOf({ role, name, ref: n, facts: factsOf(el, role), children: [], vis: true });
    };
    const items: string[] = [];
    for (const el of this.visibleControls()) if (!this.before.has(el)) items.push(line(el, "clickable"));
    if (!items.length) return { lines: [], refs: [] };
    const head = line(trigger, "clickable", this.names[i]);
    return { lines: [`# hovering ${head} reveals (bsk hover it first, then act):`, ...items.map((l) => `  ${l}`)], refs };
  }
}
