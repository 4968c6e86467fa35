/**
 * What counts as an actionable control of a page, for the bench: a DOM query run in every frame (open shadow roots
 * included), visible, enabled and not inert (under a modal dialog only the dialog's own). Shared by the Playwright half (Node) and the bsk half (Bun).
 * Each control also gets a short text key (its label, text, placeholder or title) to look for in a snapshot.
 */
export const ACTIONABLE_SELECTOR = [
  "a[href]",
  "area[href]",
  "button",
  "input:not([type=hidden])",
  "select",
  "textarea",
  "summary",
  '[contenteditable=""]',
  "[contenteditable=true]",
  ...[
    "button",
    "link",
    "checkbox",
    "radio",
    "switch",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "combobox",
    "textbox",
    "searchbox",
    "slider",
    "spinbutton",
  ].map((r) => `[role=${r}]`),
  "[onclick]",
  "[draggable=true]",
  '[tabindex]:not([tabindex="-1"])',
].join(", ");

/** The attribute MARK_ACTIONABLE numbers each control with (its index in the returned list). */
export const MARK_ATTRIBUTE = "data-bench-k";

/**
 * A function source for page.evaluate / Runtime.evaluate: → [{tag, key}] of this frame's actionable controls;
 * with `mark`, each control also gets MARK_ATTRIBUTE = its index, so a snapshot's refs can be traced back to them.
 */
const collect = (mark) => `(() => {
  const selector = ${JSON.stringify(ACTIONABLE_SELECTOR)};
  const out = [];
  // A wrapping label's own words, without the text of the control inside it (a select's options).
  const labelOf = (el) => {
    const label = el.labels && el.labels[0];
    return label ? [...label.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join(" ").trim() : "";
  };
  const keyOf = (el) => {
    const own = el.matches("input, select, textarea") ? "" : el.innerText;
    const text = el.getAttribute("aria-label") || labelOf(el) || own || el.getAttribute("placeholder") || el.getAttribute("title") || el.getAttribute("value") || "";
    return text.replace(/\\s+/g, " ").trim().slice(0, 40);
  };
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (!el.matches(selector) || el.matches(":disabled") || el.closest("[inert]")) continue;
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      ${mark ? `el.setAttribute("${MARK_ATTRIBUTE}", String(out.length));` : ""}
      out.push({ tag: el.tagName.toLowerCase(), key: keyOf(el) });
    }
  };
  // Under a modal dialog (showModal, or a shown aria-modal one over a backdrop) the rest of the page is not actionable.
  const modal = document.querySelector(":modal") ?? [...document.querySelectorAll("[aria-modal=true]")].find((d) => d.checkVisibility());
  walk(modal ?? document);
  return out;
})()`;

export const COLLECT_ACTIONABLE = collect(false);
export const MARK_ACTIONABLE = collect(true);
