/** Roles and accessible names per WAI-ARIA / accname, via dom-accessibility-api, with the few fixes a snapshot needs. */
import { computeAccessibleName, getRole } from "dom-accessibility-api";

/** The element's role; "generic" when it has none (a plain div or span). */
export function roleOf(el: Element): string {
  const role = getRole(el);
  if (!role) {
    // html-aria gives these inputs no role; an agent types into them or clicks them like the role says.
    if (el.localName === "input") {
      const type = (el as HTMLInputElement).type;
      if (/^(password|date|time|datetime-local|month|week)$/.test(type)) return "textbox";
      if (type === "color" || type === "file") return "button";
    }
    return "generic";
  }
  const tag = el.localName;
  // html-aria: <section> and <form> are landmarks only when named; header/footer only outside sectioning content.
  if (
    (tag === "section" || tag === "form") &&
    !el.hasAttribute("aria-label") &&
    !el.hasAttribute("aria-labelledby") &&
    !el.hasAttribute("title")
  ) {
    return role === "region" || role === "form" ? "generic" : role;
  }
  if ((tag === "header" || tag === "footer") && el.closest("article,aside,main,nav,section") && !el.getAttribute("role")) return "generic";
  return role;
}

/** Elements named by their content (when no aria-label/labelledby says otherwise). */
const NAMED_BY_CONTENT = new Set([
  "a",
  "button",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "summary",
  "legend",
  "caption",
  "th",
  "td",
  "li",
  "option",
]);
/** Phrasing elements that add nothing to a name but their text. */
const PLAIN = new Set([
  "b",
  "i",
  "em",
  "strong",
  "span",
  "small",
  "code",
  "mark",
  "u",
  "s",
  "abbr",
  "time",
  "sub",
  "sup",
  "br",
  "kbd",
  "q",
  "cite",
  "dfn",
  "var",
  "bdi",
  "bdo",
  "wbr",
  "data",
  "font",
]);
const FAST_MAX_DESCENDANTS = 12;

/**
 * The name when it is just the element's text: no ARIA naming, only plain phrasing inside, nothing hidden. Cold,
 * the accname walk costs ~0.2 ms per element (styles of every node and pseudo-element); this is ~50× cheaper,
 * and anything it is unsure about goes to the full algorithm.
 */
function plainTextName(el: Element): string | null {
  if (!NAMED_BY_CONTENT.has(el.localName)) return null;
  const role = el.getAttribute("role");
  if (role && role !== "button" && role !== "link" && role !== "heading" && role !== "tab" && role !== "menuitem") return null;
  const inner = el.getElementsByTagName("*");
  if (inner.length > FAST_MAX_DESCENDANTS) return null;
  const win = el.ownerDocument.defaultView;
  for (let i = 0; i < inner.length; i++) {
    const d = inner[i]!;
    if (
      !PLAIN.has(d.localName) ||
      d.hasAttribute("role") ||
      d.hasAttribute("aria-label") ||
      d.hasAttribute("aria-labelledby") ||
      d.hasAttribute("aria-hidden") ||
      d.hasAttribute("hidden")
    )
      return null;
    const st = win?.getComputedStyle(d);
    if (st && (st.display === "none" || st.visibility === "hidden")) return null;
  }
  return normalize(el.textContent ?? "") || normalize(el.getAttribute("title") ?? "");
}

export function nameOf(el: Element): string {
  if (!el.hasAttribute("aria-labelledby")) {
    const label = el.getAttribute("aria-label");
    if (label?.trim()) return normalize(label);
    const plain = plainTextName(el);
    if (plain !== null) return plain;
  }
  return normalize(computeAccessibleName(el));
}

export function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
