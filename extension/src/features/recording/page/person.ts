/**
 * In the page: which edits of a field the person made. A trusted `input` event is not enough (a page's
 * document.execCommand("insertText") fires one too): an edit is the person's only when their own input on that
 * field stands behind it in the same task: a typed character or an IME commit (the browser's `textInput`, with the
 * very text inserted; execCommand never fires it), a key for deleting, new lines and undo, a paste, cut or drop, or
 * a composition the person is in. Each field keeps the value as the person's edits left it, so text the page adds
 * (even on the person's own key) never becomes part of what the person typed.
 */

type Why = "text" | "key" | "paste" | "cut" | "drop";

/** The input types each of the person's events can stand behind. */
const BEHIND: Record<Why, (type: string) => boolean> = {
  text: (t) => t === "insertText",
  key: (t) => t.startsWith("delete") || t === "insertLineBreak" || t === "insertParagraph" || t.startsWith("history"),
  paste: (t) => t === "insertFromPaste" || t === "insertFromPasteAsQuotation",
  cut: (t) => t === "deleteByCut",
  drop: (t) => t === "insertFromDrop" || t === "deleteByDrag",
};

interface Arm {
  el: Element;
  why: Why;
  data?: string;
}

export class PersonInput {
  /** The field's value as the person's own edits left it. */
  private readonly mine = new WeakMap<Element, string>();
  /** The field's value just before the edit now under way (beforeinput). */
  private readonly was = new WeakMap<Element, string>();
  /** The person's events of this task, each good for one edit. */
  private arms: Arm[] = [];
  private composing: Element | null = null;

  constructor(private readonly read: (el: Element) => string) {}

  /** The person reached the field (pointerdown, keydown): its value now is where their edits start from. */
  touch(el: Element): void {
    if (!this.mine.has(el)) this.mine.set(el, this.read(el));
  }

  key(el: Element): void {
    this.touch(el);
    this.arm({ el, why: "key" });
  }

  /** textInput, paste, cut, drop and composition events (trusted) on a field. */
  note(el: Element, e: Event): void {
    this.touch(el);
    if (e.type === "compositionstart") this.composing = el;
    else if (e.type === "compositionend") this.composing = null;
    else if (e.type === "textInput") this.arm({ el, why: "text", data: (e as Event & { data?: string }).data ?? "" });
    else this.arm({ el, why: e.type as Why });
  }

  before(el: Element): void {
    this.was.set(el, this.read(el));
  }

  /** After an edit of `el`: the field's value as the person made it, or null when the edit was not theirs. */
  after(el: Element, e: InputEvent): string | null {
    const type = e.inputType ?? "";
    const composed = this.composing === el && /Composition/.test(type);
    const i = this.arms.findIndex((a) => a.el === el && BEHIND[a.why](type) && (a.why !== "text" || a.data === e.data));
    if (i < 0 && !composed) return null;
    if (i >= 0) this.arms.splice(i, 1);
    const now = this.read(el);
    const before = this.was.get(el) ?? this.mine.get(el) ?? now;
    this.was.delete(el);
    const mine = this.mine.get(el) ?? before;
    const next = mine === before ? now : applyEdit(mine, before, now);
    this.mine.set(el, next);
    return next;
  }

  private arm(a: Arm): void {
    if (!this.arms.length) setTimeout(() => (this.arms = []), 0);
    this.arms.push(a);
  }
}

/**
 * The page changed the field since the person's last edit: the person's edit (from `before` to `now`) is applied to
 * their own value, at its end (where typing goes), so the page's text stays out.
 */
function applyEdit(mine: string, before: string, now: string): string {
  let p = 0;
  while (p < before.length && p < now.length && before[p] === now[p]) p++;
  let s = 0;
  while (s < before.length - p && s < now.length - p && before[before.length - 1 - s] === now[now.length - 1 - s]) s++;
  const removed = before.length - p - s;
  return mine.slice(0, Math.max(0, mine.length - removed)) + now.slice(p, now.length - s);
}
