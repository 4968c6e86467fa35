/** The active modal layer of a document, and how many controls it covers. */

function matches(el: Element, selector: string): boolean {
  try {
    return el.matches(selector);
  } catch {
    return false;
  }
}

function shown(el: Element): boolean {
  const check = (el as HTMLElement).checkVisibility;
  return typeof check === "function" ? check.call(el) : el.ownerDocument.defaultView!.getComputedStyle(el).display !== "none";
}

/** The topmost open modal: a <dialog> opened with showModal(), else a visible aria-modal dialog (last in the document). */
export function findModal(doc: Document): Element | null {
  let found: Element | null = null;
  for (const d of doc.querySelectorAll("dialog")) if ((d as HTMLDialogElement).open && matches(d, ":modal")) found = d;
  if (found) return found;
  for (const d of doc.querySelectorAll('[aria-modal="true"]')) {
    const role = d.getAttribute("role");
    if ((role === "dialog" || role === "alertdialog") && shown(d)) found = d;
  }
  return found;
}

export const CONTROLS =
  'a[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable=""],[contenteditable=true],[tabindex]:not([tabindex="-1"]),' +
  "[role=button],[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=option],[role=switch],[role=textbox],[role=combobox]";

/** Visible controls outside the modal: what the agent cannot act on while it is open. */
export function coveredControls(doc: Document, modal: Element): number {
  let n = 0;
  for (const el of doc.querySelectorAll(CONTROLS)) if (!modal.contains(el) && shown(el)) n++;
  return n;
}
