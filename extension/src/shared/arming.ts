/**
 * When the person's buttons in bsk's panels take the person's input: the approval panel's Allow and Deny, the help
 * panel's Done and Cancel, a recording's Finish, the borrow consent window's Allow and Deny. One rule for all of them.
 *
 * A button is armed only once the browser has said it is really visible (IntersectionObserver v2: on screen, not
 * covered, not transparent, not transformed) for ARM_MS without a break; every loss of visibility disarms it and
 * starts the clock again. Until then it is disabled, and a click on it does nothing: not one already on its way when
 * the panel appeared, not one a page lured by showing the panel only under the person's pointer (the page can style
 * the overlay's host and cover it from the top layer), not one that lands on a button the person saw for a moment.
 *
 * Keys: Enter or Space on a button (a click with `detail` 0) counts only while the focus is in a panel the person
 * put it in with their own pointer. A page can reach the overlay's host and see every key the person presses, so
 * focus it moved next to a panel, or Tab presses it lured into one, reach buttons that take no keys.
 */
import { watchVisible } from "./visible.ts";

/** How long a button must have been visible before it takes input. */
const ARM_MS = 600;

export class Arming {
  private readonly armed = new Set<HTMLButtonElement>();
  private readonly timers = new Map<HTMLButtonElement, ReturnType<typeof setTimeout>>();
  private readonly stops: (() => void)[] = [];
  /** The person's pointer pressed inside the panel and the focus has not left it since. */
  private engaged = false;
  /** Answered: every button stays off. */
  private spent = false;

  constructor(panel: HTMLElement) {
    // A press anywhere in the panel puts the focus in it, so the person can go on with Tab and Enter from there.
    panel.tabIndex = -1;
    panel.addEventListener(
      "pointerdown",
      (e) => {
        if (e.isTrusted) this.engaged = true;
      },
      true,
    );
    panel.addEventListener("focusout", (e) => {
      if (!(e.relatedTarget instanceof Node && panel.contains(e.relatedTarget))) this.engaged = false;
    });
  }

  /**
   * The person's own press landed in a frame of the panel (the help panel's note field), which the panel's listener
   * cannot see: it counts as a press in the panel. The frame's focus is inside the panel, so Tab from there keeps it.
   */
  engage(): void {
    this.engaged = true;
  }

  /** Makes `b` one of the panel's buttons: `act` runs for the person's click or key on it while it is armed. */
  button(b: HTMLButtonElement, act: () => void): HTMLButtonElement {
    b.disabled = true;
    b.addEventListener("click", (e) => {
      if (!e.isTrusted || this.spent || !this.armed.has(b) || (e.detail === 0 && !this.engaged)) return;
      e.preventDefault();
      e.stopPropagation();
      act();
    });
    this.stops.push(watchVisible(b, (visible) => this.seen(b, visible)));
    return b;
  }

  private seen(b: HTMLButtonElement, visible: boolean): void {
    clearTimeout(this.timers.get(b));
    this.timers.delete(b);
    this.armed.delete(b);
    b.disabled = true;
    if (!visible || this.spent) return;
    this.timers.set(
      b,
      setTimeout(() => {
        this.timers.delete(b);
        if (this.spent) return;
        this.armed.add(b);
        b.disabled = false;
      }, ARM_MS),
    );
  }

  /** The panel was answered: nothing more is taken, and every button shows off. */
  spend(): void {
    this.spent = true;
    for (const b of this.armed) b.disabled = true;
    this.armed.clear();
  }

  dispose(): void {
    for (const stop of this.stops) stop();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
