/** Roles and accessible names per WAI-ARIA / accname, via dom-accessibility-api, with the few fixes a snapshot needs. */
import { computeAccessibleName, getRole } from "dom-accessibility-api";

/** The element's role; "generic" when it has none (a plain div or span). */
export function roleOf(el: Element): string {
  const role = getRole(el);
  if (!role) {
    // html-aria gives password inputs no role; an agent types into them like any textbox.
    if (el.localName === "input" && (el as HTMLInputElement).type === "password") return "textbox";
    return "generic";
  }
  const tag = el.localName;
  // html-aria: <section> and <form> are landmarks only when named; header/footer only outside sectioning content.
  if ((tag === "section" || tag === "form") && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby") && !el.hasAttribute("title")) {
    return role === "region" || role === "form" ? "generic" : role;
  }
  if ((tag === "header" || tag === "footer") && el.closest("article,aside,main,nav,section") && !el.getAttribute("role")) return "generic";
  return role;
}

export function nameOf(el: Element): string {
  return normalize(computeAccessibleName(el));
}

export function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
