/**
 * The control pill ("Agent is working", the session's name, Take over / Resume / Stop) and the edge glow shown
 * while a call of the session runs on this tab. Only real clicks count (isTrusted): page scripts cannot press them.
 *
 * The person must always see that an agent drives the tab and be able to stop it. The host puts itself back when the
 * page removes, moves or restyles it (host.ts); what it cannot undo (a cover in the top layer, the page's root made
 * transparent or moved away) the browser's visibility check shows: a pill not seen for HIDDEN_MS while it should be
 * is reported (`onHidden`), and the popup and the tab's title say so.
 */
import { watchVisible } from "../../../shared/visible.ts";
import { t } from "../../../shared/i18n.ts";
import type { OverlayView } from "../../../shared/messages/overlay.ts";
import { said } from "./said.ts";

export type PillAction = "takeover" | "resume" | "stop";

/** How long a pill that should show may stay unseen before the page is said to hide it. */
const HIDDEN_MS = 1_000;

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
  /** Hiding is watched while the pill shows and no screenshot hides it. */
  private watch = { stop: null as (() => void) | null, timer: undefined as ReturnType<typeof setTimeout> | undefined, capturing: false };
  private hidden = false;

  constructor(
    parent: HTMLElement,
    act: (action: PillAction) => void,
    private readonly onHidden: (hidden: boolean) => void,
  ) {
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
    this.watchHiding(shown && !this.watch.capturing);
    if (!shown) {
      this.tellHidden(false);
      return;
    }
    const taken = view!.state === "taken_over";
    this.pill.classList.toggle("taken", taken);
    this.pill.classList.toggle("busy", view!.busy && !taken);
    this.label.textContent = taken
      ? t("pill.taken_over")
      : view!.remote_host !== undefined
        ? t("pill.remote", { host: view!.remote_host })
        : t("pill.working");
    said(this.name, `· ${view!.name || view!.session_id}`);
    this.buttons.takeover.hidden = taken;
    this.buttons.resume.hidden = !taken;
  }

  /** A screenshot hides the overlay on purpose: not the page's doing. */
  setCapturing(capturing: boolean): void {
    this.watch.capturing = capturing;
    this.watchHiding(!capturing && !this.pill.hidden);
  }

  private watchHiding(on: boolean): void {
    if (on && !this.watch.stop) this.watch.stop = watchVisible(this.pill, (visible) => this.seen(visible));
    if (on) return;
    this.watch.stop?.();
    this.watch.stop = null;
    clearTimeout(this.watch.timer);
    this.watch.timer = undefined;
  }

  private seen(visible: boolean): void {
    clearTimeout(this.watch.timer);
    this.watch.timer = undefined;
    if (visible) this.tellHidden(false);
    else this.watch.timer = setTimeout(() => this.tellHidden(true), HIDDEN_MS);
  }

  private tellHidden(hidden: boolean): void {
    if (this.hidden === hidden) return;
    this.hidden = hidden;
    this.onHidden(hidden);
  }

  dispose(): void {
    this.watchHiding(false);
    this.tellHidden(false);
  }
}
