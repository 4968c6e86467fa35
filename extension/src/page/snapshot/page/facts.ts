/** DOM facts fused into a node's line: form state (values masked where secret), ARIA states, heading level. */

const MAX_VALUE = 80;
export const MASK = "•••";

/** Passwords, card data and one-time codes never leave the page in clear. */
export function isSecretField(el: Element): boolean {
  if (el.localName !== "input") return false;
  const input = el as HTMLInputElement;
  if (input.type === "password") return true;
  const ac = (input.getAttribute("autocomplete") ?? "").toLowerCase();
  if (/\b(cc-number|cc-csc|cc-exp|cc-exp-month|cc-exp-year|one-time-code|current-password|new-password)\b/.test(ac)) return true;
  const hint = `${input.name} ${input.id}`.toLowerCase();
  return /\b(cvv|cvc|csc|otp)\b|card.?num|cc.?num|one.?time/.test(hint);
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function quote(text: string): string {
  return JSON.stringify(text);
}

function optionLabel(o: HTMLOptionElement): string {
  return (o.getAttribute("label") ?? o.textContent ?? "").replace(/\s+/g, " ").trim() || o.value;
}

const TEXT_INPUT = /^(text|search|email|url|tel|password|number|date|datetime-local|month|week|time|color)$/;

/** Options a select lists by default; `--max-options` lists more. */
export const MAX_OPTIONS = 10;

/** A select's options: the first `max`, the selected ones wherever they are, and how to see the rest. */
function optionsFact(select: HTMLSelectElement, max: number): string {
  const all = [...select.options];
  const shown = all.filter((o, i) => i < max || o.selected);
  const rest = all.length - shown.length;
  const list = shown.map((o) => quote(clip(optionLabel(o), 40)));
  if (rest) list.push(`+${rest} more: --max-options ${all.length}`);
  return `options=[${list.join(",")}]`;
}

function valueFacts(el: Element, role: string, out: string[], maxOptions: number): void {
  const tag = el.localName;
  if (tag === "input" && (el as HTMLInputElement).type === "file") {
    const input = el as HTMLInputElement;
    out.push("file");
    if (input.multiple) out.push("multiple");
    const names = [...(input.files ?? [])].map((f) => f.name);
    out.push(names.length ? `files=${quote(clip(names.join(", "), MAX_VALUE))}` : "empty");
    return;
  }
  if (tag === "input" || tag === "textarea") {
    const input = el as HTMLInputElement;
    if (tag === "input" && !TEXT_INPUT.test(input.type)) return;
    const value = input.value;
    if (!value) {
      out.push("empty");
      const ph = input.placeholder?.trim();
      if (ph) out.push(`placeholder=${quote(clip(ph, MAX_VALUE))}`);
      return;
    }
    out.push(`value=${quote(isSecretField(el) ? MASK : clip(value.replace(/\s+/g, " "), MAX_VALUE))}`);
    if (value === input.defaultValue) out.push("default");
    return;
  }
  if (tag === "select") {
    const select = el as HTMLSelectElement;
    const chosen = [...select.options].filter((o) => o.selected).map(optionLabel);
    if (select.multiple) out.push(chosen.length ? `selected=${quote(clip(chosen.join(", "), MAX_VALUE))}` : "empty");
    else out.push(chosen[0] ? `value=${quote(clip(chosen[0], MAX_VALUE))}` : "empty");
    out.push(optionsFact(select, maxOptions));
    return;
  }
  if (role === "textbox" && (el as HTMLElement).isContentEditable) {
    const text = ((el as HTMLElement).innerText ?? el.textContent ?? "").replace(/\s+/g, " ").trim();
    out.push(text ? `value=${quote(clip(text, MAX_VALUE))}` : "empty");
  }
}

const RANGE_ROLES = new Set(["slider", "spinbutton", "progressbar", "meter", "scrollbar"]);

/** Compact facts for a node's `[…]` group, in a fixed order. */
export function factsOf(el: Element, role: string, maxOptions = MAX_OPTIONS): string[] {
  const out: string[] = [];
  const attr = (n: string) => el.getAttribute(n);
  if (role === "heading") {
    const level = attr("aria-level") ?? /^h([1-6])$/.exec(el.localName)?.[1] ?? null;
    if (level) out.push(`level=${level}`);
  }
  // A textarea (implicitly) or a textbox marked so takes several lines: "the textarea" is not "the text field".
  if (role === "textbox" && attr("aria-multiline") !== "false" && (el.localName === "textarea" || attr("aria-multiline") === "true")) {
    out.push("multiline");
  }
  valueFacts(el, role, out, maxOptions);
  if (RANGE_ROLES.has(role)) {
    const v = attr("aria-valuetext") ?? attr("aria-valuenow") ?? ((el as HTMLInputElement).value || null);
    if (v !== null && !out.some((f) => f.startsWith("value="))) out.push(`value=${quote(clip(v, MAX_VALUE))}`);
  }
  if (role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox" || role === "menuitemradio") {
    const aria = attr("aria-checked");
    const checked = el.localName === "input" ? (el as HTMLInputElement).checked : aria === "true";
    if ((el as HTMLInputElement).indeterminate || aria === "mixed") out.push("mixed");
    else if (checked) out.push("checked");
  }
  if (attr("aria-selected") === "true" || (role === "option" && (el as HTMLOptionElement).selected)) out.push("selected");
  if (attr("aria-pressed") === "true") out.push("pressed");
  const expanded = attr("aria-expanded");
  if (expanded === "true") out.push("expanded");
  else if (expanded === "false") out.push("collapsed");
  else if (el.localName === "summary" && el.parentElement?.localName === "details") {
    out.push((el.parentElement as HTMLDetailsElement).open ? "expanded" : "collapsed");
  }
  const popup = attr("aria-haspopup");
  if (popup && popup !== "false") out.push(popup === "true" ? "haspopup" : `haspopup=${popup}`);
  const current = attr("aria-current");
  if (current && current !== "false") out.push(current === "true" ? "current" : `current=${current}`);
  if (el.matches(":disabled") || attr("aria-disabled") === "true") out.push("disabled");
  if ((el as HTMLInputElement).readOnly === true || attr("aria-readonly") === "true") out.push("readonly");
  if ((el as HTMLInputElement).required === true || attr("aria-required") === "true") out.push("required");
  if (attr("aria-invalid") === "true" || safeMatches(el, ":user-invalid")) out.push("invalid");
  return out;
}

function safeMatches(el: Element, selector: string): boolean {
  try {
    return el.matches(selector);
  } catch {
    return false;
  }
}
