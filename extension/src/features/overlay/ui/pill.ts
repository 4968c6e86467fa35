/**
 * The control pill ("Agent is working", the session's name, Take over / Resume / Stop) and the edge glow shown
 * while a call of the session runs on this tab. Only real clicks count (isTrusted): page scripts cannot press them.
 */
import { t } from "../../../shared/i18n.ts";
import type { OverlayView } from "../../../shared/messages/overlay.ts";

export type PillAction = "takeover" | "resume" | "stop";

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export class Pill {
  private readonly glow = el("div", "glow");
  private readonly pill = el("div", "pill");
  private readonly label = el("span", "label");
  private readonly name = el("span", "name");
  private readonly buttons: Record<PillAction, HTMLButtonElement>;

  constructor(parent: HTMLElement, act: (action: PillAction) => void) {
    this.pill.setAttribute("role", "status");
    this.buttons = {
      takeover: this.button("takeover", t("pill.takeover"), t("pill.takeover_title"), act),
      resume: this.button("resume", t("pill.resume"), t("pill.resume_title"), act),
      stop: this.button("stop", t("pill.stop"), t("pill.stop_title"), act),
    };
    this.buttons.stop.classList.add("stop");
    this.pill.append(el("span", "dot"), this.label, this.name, this.buttons.takeover, this.buttons.resume, this.buttons.stop);
    this.glow.hidden = this.pill.hidden = true;
    parent.append(this.glow, this.pill);
  }

  private button(action: PillAction, text: string, title: string, act: (a: PillAction) => void): HTMLButtonElement {
    const b = el("button", "", text);
    b.type = "button";
    b.title = title;
    b.dataset.action = action;
    b.addEventListener("click", (e) => {
      if (!e.isTrusted) return;
      e.preventDefault();
      e.stopPropagation();
      act(action);
    });
    return b;
  }

  /** Shown while the session is live and hints are on; hidden during a help request or a recording (their panels speak then). */
  update(view: OverlayView | null): void {
    const shown = view?.hints === true && view.help === null && view.record === null;
    this.pill.hidden = !shown;
    this.glow.classList.toggle("on", shown && view!.busy && view!.state === "live");
    this.glow.hidden = !shown;
    if (!shown) return;
    const taken = view!.state === "taken_over";
    this.pill.classList.toggle("taken", taken);
    this.pill.classList.toggle("busy", view!.busy && !taken);
    this.label.textContent = taken
      ? t("pill.taken_over")
      : view!.remote_host !== undefined
        ? t("pill.remote", { host: view!.remote_host })
        : t("pill.working");
    this.name.textContent = `· ${view!.name || view!.session_id}`;
    this.buttons.takeover.hidden = taken;
    this.buttons.resume.hidden = !taken;
  }
}
