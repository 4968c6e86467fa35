/**
 * Form controls, page side: what fill, select, check and focus need to know about and do to an element. Each
 * function runs in bsk's isolated world with `this` = the element and answers one JSON string (sent as source, so
 * each is self-contained). Values are set the way the browser's own editing does where CDP input cannot reach
 * (date-like inputs, native <select>), followed by the input and change events a person's choice would fire.
 */
import { BskError } from "../../../protocol/errors.ts";
import { installDomProbe, type SettledRead } from "./dom-probe.ts";
import { callOn } from "../cdp/page-call.ts";
import type { ResolvedTarget } from "../cdp/refs/target.ts";

type Call = { cdp: ResolvedTarget["cdp"]; objectId: string };

const withProbe = (fn: (...args: any[]) => unknown) =>
  `function (...args) { return (${fn.toString()}).call(this, ${installDomProbe.toString()}, ...args); }`;

// ---------------------------------------------------------------- fill

export type FillPrep =
  | { mode: "type" | "set"; empty: boolean }
  | { error: "not_editable"; kind: string }
  | { error: "disabled" | "readonly" };

export function prepareFillInPage(this: Element, installProbe: (n: Node) => void): string {
  const el = this as HTMLElement;
  const out = (v: unknown) => JSON.stringify(v);
  const SET = ["date", "time", "datetime-local", "month", "week", "color", "range"];
  const NOT_TEXT = ["checkbox", "radio", "file", "button", "submit", "reset", "image", "hidden"];
  let mode: "type" | "set";
  if (el instanceof HTMLInputElement) {
    if (NOT_TEXT.includes(el.type)) return out({ error: "not_editable", kind: `input type=${el.type}` });
    mode = SET.includes(el.type) ? "set" : "type";
  } else if (el instanceof HTMLTextAreaElement) mode = "type";
  else if (el instanceof HTMLSelectElement) return out({ error: "not_editable", kind: "select" });
  else if (el.isContentEditable) mode = "type";
  else return out({ error: "not_editable", kind: el.localName });
  if (el.matches(":disabled")) return out({ error: "disabled" });
  if ((el as HTMLInputElement).readOnly) return out({ error: "readonly" });
  installProbe(el);
  let empty: boolean;
  if (mode === "type") {
    el.focus();
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      el.select();
      empty = el.value === "";
    } else {
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      const sel = el.ownerDocument.getSelection()!;
      sel.removeAllRanges();
      sel.addRange(range);
      empty = (el.textContent ?? "") === "";
    }
  } else empty = (el as HTMLInputElement).value === "";
  return out({ mode, empty });
}

/** For inputs a key cannot type into (date, time, color, range): the value as the browser would set it. */
function setValueInPage(this: HTMLInputElement, value: string): string {
  this.focus();
  this.value = value;
  this.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  this.dispatchEvent(new Event("change", { bubbles: true }));
  return JSON.stringify(true);
}

function readValueInPage(this: HTMLElement): string {
  const value = this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement ? this.value : this.innerText.replace(/\n$/, "");
  const ac = (this.getAttribute("autocomplete") ?? "").toLowerCase();
  const secret =
    (this instanceof HTMLInputElement && this.type === "password") ||
    /cc-number|cc-csc|one-time-code|current-password|new-password/.test(ac);
  // Where the focus is now: a value that is not there, with the focus gone elsewhere, went elsewhere (aim.ts).
  let a = this.ownerDocument.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  let focus: [string, string] | null = null;
  if (a !== this) {
    focus = [a?.localName ?? "nothing", ""];
    try {
      if (a) focus = JSON.parse((globalThis as any).__bsk.describe(a));
    } catch {
      /* no runtime: the tag name says enough */
    }
    if (a && ["iframe", "frame", "object", "embed", "fencedframe", "portal"].includes(a.localName)) focus = ["frame", focus![1]];
  }
  return JSON.stringify({ value, secret, focus });
}

export function setValue(rt: Call, value: string, signal: AbortSignal): Promise<unknown> {
  return callOn(rt, setValueInPage.toString(), [value], signal);
}

/** Read back after the settle, in the settle's own page call (effects.ts ElementProbe.after). */
export const READ_VALUE_FN = readValueInPage.toString();

// ---------------------------------------------------------------- select

export type SelectReply =
  | { ok: true; selected: { value: string; label: string }[]; settled: SettledRead | null }
  | { error: "not_select"; kind: string; listbox: boolean }
  | { error: "disabled" }
  | { error: "not_multiple"; count: number }
  | { error: "no_option"; wanted: string; options: string[] }
  | { error: "option_disabled"; wanted: string };

export function selectInPage(this: Element, installProbe: (n: Node) => void, wanted: string[]): string | Promise<string> {
  const out = (v: unknown) => JSON.stringify(v);
  if (!(this instanceof HTMLSelectElement)) {
    return out({ error: "not_select", kind: this.localName, listbox: this.getAttribute("role") === "listbox" });
  }
  if (this.matches(":disabled")) return out({ error: "disabled" });
  if (!this.multiple && wanted.length > 1) return out({ error: "not_multiple", count: wanted.length });
  const norm = (s: string) => s.replace(/\s+/g, " ").trim();
  const options = [...this.options];
  const picked: HTMLOptionElement[] = [];
  for (const w of wanted) {
    const o =
      options.find((x) => x.value === w) ??
      options.find((x) => norm(x.label) === norm(w)) ??
      options.find((x) => norm(x.label).toLowerCase() === norm(w).toLowerCase());
    if (!o) return out({ error: "no_option", wanted: w, options: options.slice(0, 30).map((x) => norm(x.label) || x.value) });
    if (o.disabled || (o.parentElement instanceof HTMLOptGroupElement && o.parentElement.disabled))
      return out({ error: "option_disabled", wanted: w });
    picked.push(o);
  }
  installProbe(this);
  this.focus();
  for (const o of options) o.selected = picked.includes(o);
  this.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  this.dispatchEvent(new Event("change", { bubbles: true }));
  const selected = [...this.selectedOptions].map((o) => ({ value: o.value, label: norm(o.label) }));
  // The effect's read rides on this call (one page round trip less): a task later, once the promise callbacks of the
  // page's handlers have run. It is final when the DOM changed or the page has nothing queued (the work registry);
  // otherwise null, and the settle waits and reads as after any input (settle-read.ts afterFrame, READ_DOM_PROBE).
  const settledRead = () => {
    const s = (globalThis as any).__bskMut;
    if (!s) return null;
    const changed = s.changed || s.mo.takeRecords().length > 0;
    return changed || (s.seen() && !s.wanted()) ? s.take() : null;
  };
  return new Promise<string>((resolve) => {
    const task = new MessageChannel();
    task.port1.onmessage = () => resolve(out({ ok: true, selected, settled: settledRead() }));
    task.port2.postMessage(null);
  });
}

/** Options of an ARIA listbox matching the wanted values by visible text (as element handles, one call each). */
function listboxOptionInPage(this: Element, wanted: string): Element | null {
  const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();
  const opts = [...this.querySelectorAll("[role=option]")];
  return (
    opts.find((o) => o.getAttribute("data-value") === wanted) ??
    opts.find((o) => norm(o.getAttribute("aria-label") ?? o.textContent ?? "") === norm(wanted)) ??
    null
  );
}
export const LISTBOX_OPTION_FN = listboxOptionInPage.toString();

// ---------------------------------------------------------------- check

export type CheckState = { kind: "checkbox" | "radio" | "aria"; checked: boolean | "mixed" } | { error: "not_checkable"; kind: string };

function checkStateInPage(this: Element): string {
  const out = (v: unknown) => JSON.stringify(v);
  if (this instanceof HTMLInputElement && (this.type === "checkbox" || this.type === "radio")) {
    return out({ kind: this.type, checked: this.type === "checkbox" && this.indeterminate ? "mixed" : this.checked });
  }
  const role = this.getAttribute("role");
  if (role && ["checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio", "option"].includes(role)) {
    const a = this.getAttribute("aria-checked") ?? this.getAttribute("aria-selected");
    return out({ kind: role === "radio" || role === "menuitemradio" ? "radio" : "aria", checked: a === "mixed" ? "mixed" : a === "true" });
  }
  return out({ error: "not_checkable", kind: role ?? this.localName });
}

export function checkState(rt: Call, signal: AbortSignal): Promise<CheckState> {
  return callOn<CheckState>(rt, CHECK_STATE_FN, [], signal);
}

/** The state read back after a click, in the settle's own page call (effects.ts ElementProbe.after). */
export const CHECK_STATE_FN = checkStateInPage.toString();

/** The first label of a form control, as an element handle (for controls hidden behind a styled label). */
export const FIRST_LABEL_FN = `function () { const l = this.labels && this.labels[0]; return l || null; }`;

// ---------------------------------------------------------------- focus

/** Arms the DOM probe, then focuses (or blurs); also an actionability `then` (page/actionability.ts). */
export function focusInPage(this: HTMLElement, installProbe: (n: Node) => void, blur: boolean): string {
  const active = () => {
    let a = this.ownerDocument.activeElement;
    while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
    return a;
  };
  installProbe(this);
  const was = active() === this;
  if (blur) this.blur();
  else this.focus();
  return JSON.stringify({ was, now: active() === this });
}

export function focusElement(rt: Call, blur: boolean, signal: AbortSignal): Promise<{ was: boolean; now: boolean }> {
  return callOn(rt, withProbe(focusInPage), [blur], signal);
}

// ---------------------------------------------------------------- errors

export function fillRefused(rt: ResolvedTarget, prep: Exclude<FillPrep, { mode: string }>): BskError {
  const data = { tab_id: rt.tabId, ...(rt.ref && { ref: rt.ref }), role: rt.role, name: rt.name };
  const what = `${rt.ref ? `${rt.ref} ` : ""}${rt.role}${rt.name ? ` ${JSON.stringify(rt.name)}` : ""}`;
  if (prep.error !== "not_editable") {
    return prep.error === "disabled"
      ? new BskError("unsupported", `${what} is disabled`, {
          hint: "Do what enables it first, then retry.",
          data: { ...data, reason: "element_disabled" },
        })
      : new BskError("unsupported", `${what} is read-only`, {
          hint: "It cannot be edited; look for the control that sets it.",
          data: { ...data, reason: "read_only" },
        });
  }
  const instead: Record<string, string> = {
    select: "use bsk select for a <select>",
    "input type=checkbox": "use bsk check / uncheck",
    "input type=radio": "use bsk check",
    "input type=file": "use bsk upload",
  };
  return new BskError("invalid_params", `${what} (${prep.kind}) is not a text field`, {
    hint: instead[prep.kind]
      ? `To change it, ${instead[prep.kind]}.`
      : "Fill an input, a textarea or an editable element; click buttons with bsk click.",
    data: { ...data, reason: "not_editable", kind: prep.kind },
  });
}
