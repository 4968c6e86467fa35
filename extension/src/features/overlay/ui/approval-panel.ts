/**
 * The approval panel: a call waits for the person's Allow on an ask-first site (or in a --confirm-writes session).
 * It says what is about to happen ("click button 'Pay now'"), why it asks, how long it waits, and offers Deny and
 * Allow. It lives in the overlay's closed shadow root (the page can neither read it nor reach its buttons), and its
 * buttons take the person's input only once they have been seen (shared/arming.ts).
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
    const what = document.createElement("div");
    what.className = "prompt what";
    what.textContent = view.text;
    const why = document.createElement("div");
    why.className = "hint why";
    why.textContent = view.cause === "confirm_writes" ? t("approval.session") : t("approval.site", { origin: view.origin ?? "" });
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
    body.append(asks, what, why, this.queued, this.left, actions);
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
