/**
 * In the page (bsk's "bsk-record" world, from the document's start): capture-phase listeners that turn what the
 * person does into raw trace steps, sent at once (so a navigation loses nothing): clicks on what can be clicked,
 * text typed into fields (each change sends the whole value; the worker folds them into one fill), selects,
 * checkboxes and radios, and the keys that act (Enter, Escape, Tab, shortcuts with Ctrl, Alt or Meta).
 * Only the person's real input counts (isTrusted), never bsk's own overlay, which is known as itself, not by its
 * tag name (a page can make a <bsk-overlay> of its own): a step on an element of that name this world does not know
 * yet goes with a number, and the worker drops it if that element was bsk's host (page/own-overlay.ts).
 * Secret fields send "***".
 *
 * A trusted event is not always the person's: a page's document.execCommand("insertText") fires a trusted `input`.
 * So text counts only when the person's own input stands behind it (person.ts): a typed character or an IME commit
 * (the browser's `textInput`, which execCommand never fires), a deleting or editing key, a paste, a drop or a
 * composition, on that very field, in the same task. The page's own edits are left out of the trace, and a fill
 * carries only what the person's input did to the field (page text added on the person's key is not in it).
 * Targets are named as they were at the person's pointerdown, before the page's handlers could rename them.
 */
import { installOwnOverlay } from "../../../page/own-overlay-in-page.ts";
import type { TraceTargetT } from "../../../../../protocol/trace.ts";
import type { RawStep } from "../fold.ts";
import { REDACTED } from "../secrets.ts";
import type { PageReport } from "../wire.ts";
import { describe, inFrame, isSecret } from "./describe.ts";
import { PersonInput } from "./person.ts";

const CLICKABLE =
  'a[href],button,input,summary,label,[role=button],[role=link],[role=tab],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=option],[role=treeitem],[role=switch],[onclick],[tabindex]:not([tabindex="-1"])';
/** Inputs a click only focuses or toggles: their own events (input, change) make the step. */
const NOT_CLICKS = /^(text|search|email|url|tel|password|number|date|time|datetime-local|month|week|color|range|file|checkbox|radio)$/;
const ACTING_KEYS = new Set(["Enter", "Escape", "Tab"]);
const MODIFIER_KEYS = new Set(["Alt", "Control", "Meta", "Shift", "CapsLock", "AltGraph", "Dead", "Process", "Unidentified"]);
const VALUE_CHARS = 10_000;

type Modifier = "Alt" | "Control" | "Meta" | "Shift";

function modifiersOf(e: MouseEvent | KeyboardEvent): Modifier[] {
  const out: Modifier[] = [];
  if (e.altKey) out.push("Alt");
  if (e.ctrlKey) out.push("Control");
  if (e.metaKey) out.push("Meta");
  if (e.shiftKey) out.push("Shift");
  return out;
}

function elementOf(e: Event): Element | null {
  const t = e.composedPath()[0] ?? e.target;
  return t instanceof Element ? t : null;
}

function isTextField(el: Element): el is HTMLInputElement | HTMLTextAreaElement {
  if (el.localName === "textarea") return true;
  return el.localName === "input" && !/^(checkbox|radio|file|submit|button|reset|image|hidden)$/.test((el as HTMLInputElement).type);
}

function clickedElement(e: MouseEvent): Element | null {
  const at = elementOf(e);
  return at?.closest(CLICKABLE) ?? at;
}

/** The click's step, or null when the element's own events tell it (fields, checkboxes, a label of one). */
function clickStep(e: MouseEvent, pressed: { el: Element; target: TraceTargetT } | null): RawStep | null {
  const el = clickedElement(e);
  if (!el || el.localName === "html" || el.localName === "body") return null;
  if (el.localName === "select" || el.localName === "textarea" || (el as HTMLElement).isContentEditable) return null;
  if (el.localName === "input" && NOT_CLICKS.test((el as HTMLInputElement).type)) return null;
  if (el.localName === "label" && (el as HTMLLabelElement).control) return null;
  const modifiers = modifiersOf(e);
  return {
    op: "click",
    target: pressed?.el === el ? pressed.target : describe(el),
    ...(e.button === 1 ? { button: "middle" as const } : e.button === 2 ? { button: "right" as const } : {}),
    ...(e.detail > 1 && { count: Math.min(e.detail, 3) }),
    ...(modifiers.length && { modifiers }),
  };
}

function isEditable(el: Element): boolean {
  const editable = (el as HTMLElement).isContentEditable && el.localName !== "input" && el.localName !== "textarea";
  return editable || isTextField(el);
}

function fieldText(el: Element): string {
  return isTextField(el) ? el.value : ((el as HTMLElement).innerText ?? "");
}

function fillStep(el: Element, value: string): RawStep {
  if (isSecret(el)) return { op: "fill", target: describe(el), value: REDACTED, redacted: true };
  return { op: "fill", target: describe(el), value: value.slice(0, VALUE_CHARS) };
}

function changeStep(el: Element): RawStep | null {
  if (el.localName === "select") {
    const chosen = [...(el as HTMLSelectElement).selectedOptions];
    return { op: "select", target: describe(el), values: chosen.map((o) => o.value), labels: chosen.map((o) => o.label) };
  }
  if (el.localName !== "input") return null;
  const input = el as HTMLInputElement;
  if (input.type === "checkbox") return { op: input.checked ? "check" : "uncheck", target: describe(el) };
  if (input.type === "radio" && input.checked) return { op: "check", target: describe(el) };
  return null;
}

function keyStep(e: KeyboardEvent): RawStep | null {
  if (MODIFIER_KEYS.has(e.key)) return null;
  const modifiers = modifiersOf(e);
  const shortcut = e.ctrlKey || e.metaKey || e.altKey;
  if (!ACTING_KEYS.has(e.key) && !shortcut) return null;
  const focused = elementOf(e);
  const target = focused && focused.localName !== "body" && focused.localName !== "html" ? describe(focused) : undefined;
  return { op: "press", key: e.key.length === 1 ? e.key.toLowerCase() : e.key, modifiers, ...(target && { target }) };
}

export function installCapture(send: (report: PageReport) => void): void {
  const own = installOwnOverlay();
  /** While an event on an element own.whose() answered "ask" for is handled: its number. */
  let asked = 0;
  const step = (s: RawStep | null) => {
    if (s) send({ kind: "step", step: s, ...(asked ? { ask: asked } : {}) });
  };
  const on = <K extends keyof WindowEventMap>(type: K, fn: (e: WindowEventMap[K]) => void) =>
    window.addEventListener(
      type,
      (e) => {
        if (!e.isTrusted) return;
        const whose = own.whose(e.target);
        if (whose === "own") return;
        asked = whose === "ask" ? own.asked(e.target as Element) : 0;
        try {
          fn(e);
        } catch (err) {
          console.debug("bsk recorder:", err);
        } finally {
          asked = 0;
        }
      },
      { capture: true },
    );
  // Enter in a field or on a button also fires a click (implicit submission, key activation; detail 0): the
  // press step already tells it.
  let afterEnter = false;
  // What the person pressed, described at once: the page's pointerdown handlers run after this (capture, first).
  let pressed: { el: Element; target: TraceTargetT } | null = null;
  const person = new PersonInput(fieldText);
  on("pointerdown", (e) => {
    afterEnter = false;
    const el = clickedElement(e);
    pressed = el ? { el, target: describe(el) } : null;
    if (el && isEditable(el)) person.touch(el);
  });
  on("click", (e) => {
    if (e.detail === 0 && afterEnter) return void (afterEnter = false);
    step(clickStep(e, pressed));
  });
  on("auxclick", (e) => {
    if (e.button === 1) step(clickStep(e, pressed));
  });
  for (const type of ["textInput", "paste", "drop", "cut", "compositionstart", "compositionend"] as const)
    on(type as "paste", (e) => {
      const el = elementOf(e);
      if (el && isEditable(el)) person.note(el, e as Event);
    });
  on("beforeinput", (e) => {
    const el = elementOf(e);
    if (el && isEditable(el)) person.before(el);
  });
  on("input", (e) => {
    const el = elementOf(e);
    if (!el || !isEditable(el)) return;
    const value = person.after(el, e as InputEvent);
    if (value !== null) step(fillStep(el, value));
  });
  on("change", (e) => {
    const el = elementOf(e);
    if (el) step(changeStep(el));
  });
  on("keydown", (e) => {
    afterEnter = e.key === "Enter";
    const el = elementOf(e);
    if (el && isEditable(el)) person.key(el);
    step(keyStep(e));
  });

  // The page's own title and address; an iframe's are not the page's.
  if (inFrame()) return;
  const page = () => send({ kind: "page", url: location.href, title: document.title });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", page, { once: true });
  else page();
}
