/**
 * The record panel: a small box in a corner while the person records (a dot, "Recording", the purpose, the step
 * count) with Finish. Only the box takes pointer events; the page around it stays the person's. Finish takes the
 * person's input only once it has been seen (shared/arming.ts).
 */
import { Arming } from "../../../shared/arming.ts";
import { t } from "../../../shared/i18n.ts";
import type { RecordView } from "../../../shared/messages/overlay.ts";
import { said } from "./said.ts";

export class RecordPanel {
  private readonly panel = document.createElement("div");
  private readonly count = document.createElement("div");
  private readonly arming = new Arming(this.panel);

  constructor(parent: HTMLElement, view: RecordView, finish: () => void) {
    this.panel.className = "panel record";
    this.panel.setAttribute("role", "dialog");
    this.panel.setAttribute("aria-label", t("record.title"));
    const head = document.createElement("div");
    head.className = "head";
    const dot = document.createElement("span");
    dot.className = "rec-dot";
    head.append(dot, t("record.title"));
    const body = document.createElement("div");
    body.className = "body";
    if (view.purpose) {
      const purpose = document.createElement("div");
      purpose.className = "prompt";
      said(purpose, view.purpose);
      body.append(purpose);
    }
    this.count.className = "hint steps";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.dataset.action = "finish";
    button.textContent = t("record.finish");
    button.title = t("record.finish_title");
    this.arming.button(button, () => {
      this.arming.spend();
      finish();
    });
    const actions = document.createElement("div");
    actions.className = "actions";
    actions.append(this.count, button);
    body.append(actions);
    this.panel.append(head, body);
    parent.append(this.panel);
    this.update(view);
  }

  update(view: RecordView): void {
    this.count.textContent = view.steps === 1 ? t("record.step_one") : t("record.steps", { n: view.steps });
  }

  dispose(): void {
    this.arming.dispose();
    this.panel.remove();
  }
}
