/**
 * In the page: what an element is, for a trace step. Role and name as the snapshot computes them (snapshot/page/
 * aria.ts), plus fallbacks an agent can use when the page changed: a CSS selector that matches only this
 * element now, its label, placeholder, test id, name attribute, id, type and link.
 */
import type { TraceTargetT } from "../../../../../protocol/trace.ts";
import { nameOf, normalize, roleOf } from "../../../page/snapshot/page/aria.ts";
import { contextOf } from "../../../page/snapshot/page/context.ts";
import { isSecretField, type FieldFacts } from "../secrets.ts";

const ATTR_CHARS = 200;

function attr(el: Element, name: string): string | undefined {
  const v = el.getAttribute(name);
  return v?.trim() ? v.slice(0, ATTR_CHARS) : undefined;
}

export function labelOf(el: Element): string | undefined {
  const labels = (el as HTMLInputElement).labels;
  const text = labels?.length ? normalize(labels[0]!.textContent ?? "") : "";
  return text ? text.slice(0, ATTR_CHARS) : undefined;
}

function unique(sel: string, el: Element): boolean {
  try {
    const all = el.ownerDocument.querySelectorAll(sel);
    return all.length === 1 && all[0] === el;
  } catch {
    return false;
  }
}

const q = (v: string) => JSON.stringify(v);

/** The first of a few readable selectors that picks out `el` alone in its document. */
export function selectorOf(el: Element): string | undefined {
  const tag = el.localName;
  const candidates: string[] = [];
  if (el.id) candidates.push(`#${CSS.escape(el.id)}`);
  for (const a of ["data-testid", "data-test", "data-qa"]) {
    const v = el.getAttribute(a);
    if (v) candidates.push(`[${a}=${q(v)}]`);
  }
  for (const a of ["name", "aria-label", "placeholder", "href", "title"]) {
    const v = el.getAttribute(a);
    if (v && v.length <= ATTR_CHARS) candidates.push(`${tag}[${a}=${q(v)}]`);
  }
  const type = el.getAttribute("type");
  if (type) candidates.push(`${tag}[type=${q(type)}]`);
  return candidates.find((s) => unique(s, el));
}

/** This document is an iframe's (a cross-site parent cannot be read, but it can be told apart). */
export function inFrame(): boolean {
  try {
    return window.top !== window;
  } catch {
    return true;
  }
}

export function describe(el: Element): TraceTargetT {
  const t: TraceTargetT = { role: roleOf(el), name: nameOf(el).slice(0, ATTR_CHARS), tag: el.localName };
  const selector = selectorOf(el);
  const extra: Partial<TraceTargetT> = {
    selector,
    // What tells it apart from controls of the same role and name, as the snapshot says it (needed when no selector is unique).
    context: selector ? undefined : contextOf(el, t.role, nameOf(el)) || undefined,
    label: labelOf(el),
    placeholder: attr(el, "placeholder"),
    testid: attr(el, "data-testid") ?? attr(el, "data-test") ?? attr(el, "data-qa"),
    name_attr: attr(el, "name"),
    id: attr(el, "id"),
    type: el.localName === "input" || el.localName === "button" ? attr(el, "type") : undefined,
    href: el.localName === "a" ? attr(el, "href") : undefined,
    frame: inFrame() ? location.href.slice(0, 2048) : undefined,
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) (t as Record<string, unknown>)[k] = v;
  return t;
}

export function fieldFacts(el: Element): FieldFacts {
  const input = el as HTMLInputElement;
  return {
    tag: el.localName,
    type: el.localName === "input" ? input.type : "",
    autocomplete: el.getAttribute("autocomplete") ?? "",
    name: el.getAttribute("name") ?? "",
    id: el.id,
    label: labelOf(el) ?? el.getAttribute("aria-label") ?? "",
    placeholder: el.getAttribute("placeholder") ?? "",
    inputmode: el.getAttribute("inputmode") ?? "",
    maxLength: Math.max(0, Number(el.getAttribute("maxlength")) || 0),
  };
}

export function isSecret(el: Element): boolean {
  return isSecretField(fieldFacts(el));
}
