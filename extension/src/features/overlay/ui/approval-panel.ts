/**
 * The approval panel: a call waits for the person's Allow on an ask-first site (or in a --confirm-writes session).
 * It says what is about to happen ("click button 'Pay now'"), why it asks, how long it waits, and offers Deny and
 * Allow. It lives in the overlay's closed shadow root (the page can neither read it nor reach its buttons), only
 * trusted clicks count, and Allow takes clicks only after ARM_MS (a click already on its way when the panel
 * appears, one a page lured the person into, lands on a disabled button) and only while the browser says it is
 * really visible (IntersectionObserver v2): the page can reach the host element's style, and an Allow it made
 * transparent or covered must not take a click meant for something else.
 */
import { t } from "../../../shared/i18n.ts";
import type { ApprovalView } from "../../../shared/messages/overlay.ts";

const ARM_MS = 600;
/** How often the browser re-checks that Allow is visible (IntersectionObserver v2 allows 100 ms at least). */
const VISIBLE_CHECK_MS = 100;

export class ApprovalPanel {
  readonly id: string;
  private readonly panel = document.createElement("div");
  private readonly queued = document.createElement("div");
  private readonly left = document.createElement("div");
  private readonly allow: HTMLButtonElement;
  private readonly deny: HTMLButtonElement;
  private readonly tick: ReturnType<typeof setInterval>;
  private readonly arm: ReturnType<typeof setTimeout>;
  private readonly seen: IntersectionObserver;
  private armed = false;
  private visible = false;

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
    const press = (allow: boolean) => (e: MouseEvent) => {
      if (!e.isTrusted || (allow && !(this.armed && this.visible))) return;
      e.preventDefault();
      e.stopPropagation();
      this.allow.disabled = this.deny.disabled = true;
      answer(allow);
    };
    this.deny = this.button("deny", t("approval.deny"), t("approval.deny_title"), press(false));
    this.allow = this.button("allow", t("approval.allow"), t("approval.allow_title"), press(true));
    this.allow.classList.add("primary");
    this.allow.disabled = true;
    this.arm = setTimeout(() => {
      this.armed = true;
      this.refreshAllow();
    }, ARM_MS);
    this.seen = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) this.visible = (entry as IntersectionObserverEntry & { isVisible?: boolean }).isVisible === true;
        this.refreshAllow();
      },
      { threshold: [1], trackVisibility: true, delay: VISIBLE_CHECK_MS } as IntersectionObserverInit,
    );
    const actions = document.createElement("div");
    actions.className = "actions";
    actions.append(this.deny, this.allow);
    body.append(asks, what, why, this.queued, this.left, actions);
    this.panel.append(head, body);
    parent.append(this.panel);
    this.seen.observe(this.allow);
    this.tick = setInterval(() => this.showLeft(), 1000);
    this.update(view);
  }

  private button(action: string, text: string, title: string, onClick: (e: MouseEvent) => void): HTMLButtonElement {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = action;
    b.textContent = text;
    b.title = title;
    b.addEventListener("click", onClick);
    return b;
  }

  private refreshAllow(): void {
    if (!this.deny.disabled) this.allow.disabled = !(this.armed && this.visible);
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
    clearTimeout(this.arm);
    this.seen.disconnect();
    this.panel.remove();
  }
}
