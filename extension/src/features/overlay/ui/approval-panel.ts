/**
 * The approval panel: a call waits for the person's Allow on an ask-first site (or in a --confirm-writes session).
 * It says what is about to happen ("click button 'Pay now'"), why it asks, how long it waits, and offers Deny and
 * Allow. It lives in the overlay's closed shadow root (the page can neither read it nor reach its buttons), and its
 * buttons take the person's input only once they have been seen (shared/arming.ts).
 *
 * What it says about the call (the URL it names, with any token) and why it asks is not in this document: it is bsk's
 * page in a frame (entrypoints/approval-text/), cross-origin to the page, which the worker tells the text. Text in the
 * shadow root would still be found by the page's `window.find()` and read by other extensions' content scripts
 * (`chrome.dom.openOrClosedShadowRoot`).
 */
import { Arming } from "../../../shared/arming.ts";
import { t } from "../../../shared/i18n.ts";
import type { ApprovalView } from "../../../shared/messages/overlay.ts";

export class ApprovalPanel {
  readonly id: string;
  private readonly panel = document.createElement("div");
  private readonly queued = document.createElement("div");
  private readonly left = document.createElement("div");
  private readonly arming = new Arming(this.panel);
  private readonly tick: ReturnType<typeof setInterval>;

  constructor(
    parent: HTMLElement,
    private view: ApprovalView,
    /** The panel's text page for this approval (the extension's per-session dynamic URL, `?approval=<id>`). */
    textUrl: string,
    answer: (allow: boolean) => void,
  ) {
    this.id = view.id;
    this.panel.className = "panel approval";
    this.panel.setAttribute("role", "alertdialog");
    this.panel.setAttribute("aria-label", t("approval.title"));
    const head = document.createElement("div");
    head.className = "head";
    head.textContent = t("approval.title");
    const body = document.createElement("div");
    body.className = "body";
    const asks = document.createElement("div");
    asks.className = "hint";
    asks.textContent = t("approval.asks");
    const text = document.createElement("iframe");
    text.className = "text";
    text.title = t("approval.asks");
    text.src = textUrl;
    this.queued.className = "hint queued";
    this.left.className = "hint left";
    const press = (allow: boolean) => () => {
      this.arming.spend();
      answer(allow);
    };
    const deny = this.button("deny", t("approval.deny"), t("approval.deny_title"), press(false));
    const allow = this.button("allow", t("approval.allow"), t("approval.allow_title"), press(true));
    allow.classList.add("primary");
    const actions = document.createElement("div");
    actions.className = "actions";
    actions.append(deny, allow);
    body.append(asks, text, this.queued, this.left, actions);
    this.panel.append(head, body);
    parent.append(this.panel);
    this.tick = setInterval(() => this.showLeft(), 1000);
    this.update(view);
  }

  private button(action: string, text: string, title: string, act: () => void): HTMLButtonElement {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = action;
    b.textContent = text;
    b.title = title;
    return this.arming.button(b, act);
  }

  private showLeft(): void {
    this.left.textContent = t("approval.left", { s: Math.max(0, Math.ceil((this.view.deadline - Date.now()) / 1000)) });
  }

  update(view: ApprovalView): void {
    this.view = view;
    this.queued.hidden = view.queued === 0;
    this.queued.textContent = t("approval.queued", { n: view.queued });
    this.showLeft();
  }

  dispose(): void {
    clearInterval(this.tick);
    this.arming.dispose();
    this.panel.remove();
  }
}
