/**
 * The help panel: a header, the agent's title and prompt with a note field (in a frame, below), Done and Cancel;
 * draggable by its header. It also draws
 * a box around each element the worker marked as a target (HELP_TARGET_ATTR), following scrolls and layout changes.
 * Done and Cancel take the person's input only once they have been seen (shared/arming.ts).
 *
 * The agent's words and the note field are not in this document: they are bsk's note page in a frame
 * (entrypoints/note/), cross-origin to the page (its find() and other extensions' content scripts do not reach it),
 * whose every edit goes straight to the worker. Composed key and input events of a field in the shadow root
 * would reach the page's own listeners on window before anything here could stop them.
 */
import { Arming } from "../../../shared/arming.ts";
import { t } from "../../../shared/i18n.ts";
import { NOTE_PRESSED, NOTE_READY, type NoteSize } from "../../../shared/messages/note.ts";
import { HELP_TARGET_ATTR, type HelpView } from "../../../shared/messages/overlay.ts";
import { said } from "./said.ts";

/** The note frame before it has said its height: the field alone. */
const NOTE_MIN_PX = 64;

export interface PanelActions {
  done(): void;
  cancel(): void;
}

export class HelpPanel {
  readonly id: string;
  private readonly panel = document.createElement("div");
  private readonly note = document.createElement("iframe");
  /** The note frame tells of the person's press in it here (the press itself never reaches this document). */
  private readonly noteTalk = new MessageChannel();
  private readonly marks = document.createElement("div");
  private readonly arming = new Arming(this.panel);
  private markQueued = false;
  private readonly observer: MutationObserver;
  private readonly resize: ResizeObserver;
  private readonly relayout = () => this.queueMarks();

  constructor(
    parent: HTMLElement,
    view: HelpView,
    /**
     * The note page for this request: its URL (the extension's per-session dynamic URL, `?help=<id>`) and the origin
     * its document has once loaded (the extension's own: the browser maps the dynamic URL to it).
     */
    note: { url: string; origin: string },
    private readonly actions: PanelActions,
  ) {
    this.id = view.id;
    this.panel.className = "panel";
    this.panel.setAttribute("role", "dialog");
    this.panel.setAttribute("aria-label", t("help.title"));

    const head = document.createElement("div");
    head.className = "head";
    const title = document.createElement("span");
    said(title, t("help.title"));
    head.append(title);
    const grip = document.createElement("span");
    grip.className = "grip";
    grip.textContent = "⠿";
    grip.title = t("help.drag");
    head.append(grip);
    this.draggable(head);

    const body = document.createElement("div");
    body.className = "body";
    this.note.className = "note";
    this.note.title = t("help.note");
    this.note.src = note.url;
    // Handed to the note page once, on its first load, addressed to its origin only.
    this.note.addEventListener("load", () => this.note.contentWindow?.postMessage(null, note.origin, [this.noteTalk.port2]), {
      once: true,
    });
    this.noteTalk.port1.onmessage = (e) => {
      if (e.data === NOTE_PRESSED) this.arming.engage();
      // The field takes typing now (a test's person waits for this, as a person waits to see the field).
      else if (e.data === NOTE_READY) this.note.dataset.ready = "";
      else if (typeof (e.data as NoteSize | null)?.height === "number")
        this.note.style.height = `${Math.min(Math.max((e.data as NoteSize).height, NOTE_MIN_PX), innerHeight * 0.6)}px`;
    };
    const actionsRow = document.createElement("div");
    actionsRow.className = "actions";
    actionsRow.append(this.button("cancel", t("help.cancel"), false), this.button("done", t("help.done"), true));
    body.append(this.note);
    if (view.until) {
      const hint = document.createElement("div");
      hint.className = "hint";
      hint.textContent = t("help.waiting");
      body.append(hint);
    }
    body.append(actionsRow);
    this.panel.append(head, body);
    parent.append(this.marks, this.panel);

    this.observer = new MutationObserver(this.relayout);
    this.resize = new ResizeObserver(this.relayout);
    if (view.targets > 0) {
      this.observer.observe(document, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: [HELP_TARGET_ATTR, "style", "class"],
      });
      addEventListener("scroll", this.relayout, { capture: true, passive: true });
      addEventListener("resize", this.relayout, { passive: true });
      this.queueMarks();
    }
  }

  private button(action: "done" | "cancel", text: string, primary: boolean): HTMLButtonElement {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.dataset.action = action;
    if (primary) b.className = "primary";
    return this.arming.button(b, () => (action === "done" ? this.actions.done : this.actions.cancel)());
  }

  private draggable(handle: HTMLElement): void {
    let from: { x: number; y: number; left: number; top: number } | null = null;
    handle.addEventListener("pointerdown", (e) => {
      if (!e.isTrusted || e.button !== 0) return;
      const r = this.panel.getBoundingClientRect();
      from = { x: e.clientX, y: e.clientY, left: r.left, top: r.top };
      handle.setPointerCapture(e.pointerId);
      e.preventDefault();
    });
    handle.addEventListener("pointermove", (e) => {
      if (!from) return;
      const r = this.panel.getBoundingClientRect();
      const left = Math.min(Math.max(0, from.left + e.clientX - from.x), innerWidth - r.width);
      const top = Math.min(Math.max(0, from.top + e.clientY - from.y), innerHeight - 40);
      this.panel.style.left = `${left}px`;
      this.panel.style.top = `${top}px`;
      this.panel.style.right = "auto";
    });
    const end = () => (from = null);
    handle.addEventListener("pointerup", end);
    handle.addEventListener("pointercancel", end);
  }

  private queueMarks(): void {
    if (this.markQueued) return;
    this.markQueued = true;
    requestAnimationFrame(() => {
      this.markQueued = false;
      this.drawMarks();
    });
  }

  private observed = new Set<Element>();

  private drawMarks(): void {
    const targets = [...document.querySelectorAll(`[${HELP_TARGET_ATTR}="${CSS.escape(this.id)}"]`)];
    // Observing an element reports it once at once: only new targets are observed, or this would loop.
    for (const target of targets) if (!this.observed.has(target)) this.resize.observe(target);
    for (const old of this.observed) if (!targets.includes(old)) this.resize.unobserve(old);
    this.observed = new Set(targets);
    const rects = targets.map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0 || r.height > 0);
    while (this.marks.children.length > rects.length) this.marks.lastElementChild!.remove();
    while (this.marks.children.length < rects.length)
      this.marks.append(Object.assign(document.createElement("div"), { className: "mark" }));
    rects.forEach((r, i) => {
      const box = this.marks.children[i] as HTMLElement;
      Object.assign(box.style, { left: `${r.left - 2}px`, top: `${r.top - 2}px`, width: `${r.width + 4}px`, height: `${r.height + 4}px` });
    });
  }

  dispose(): void {
    this.noteTalk.port1.close();
    this.arming.dispose();
    this.observer.disconnect();
    this.resize.disconnect();
    removeEventListener("scroll", this.relayout, { capture: true });
    removeEventListener("resize", this.relayout);
    this.panel.remove();
    this.marks.remove();
  }
}
