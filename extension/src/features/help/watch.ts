/**
 * The page side of request-help's criteria: checked when the help is armed in this document, after DOM changes
 * (a MutationObserver, at most once a frame), on history and hash navigations, and when the worker says the URL
 * changed (pushState). Once they hold, a timer of stable_ms starts; any check that fails in between cancels it.
 * No polling: nothing is checked while nothing happens.
 */
import type { HelpCriteriaView } from "../../shared/messages/overlay.ts";
import { criteriaHold } from "./criteria.ts";

export class CriteriaWatch {
  private observer: MutationObserver | null = null;
  private queued = false;
  private stableTimer: ReturnType<typeof setTimeout> | undefined;
  private done = false;
  private readonly onNav = () => this.recheck();

  constructor(
    private readonly criteria: HelpCriteriaView,
    private readonly onHeld: () => void,
    private readonly onInvalid: (message: string) => void,
  ) {}

  start(): void {
    this.observer = new MutationObserver(() => this.recheck());
    this.observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    for (const type of ["popstate", "hashchange", "pageshow"]) addEventListener(type, this.onNav);
    this.check();
  }

  stop(): void {
    this.done = true;
    this.observer?.disconnect();
    clearTimeout(this.stableTimer);
    for (const type of ["popstate", "hashchange", "pageshow"]) removeEventListener(type, this.onNav);
  }

  recheck(): void {
    if (this.queued || this.done) return;
    this.queued = true;
    const run = () => {
      this.queued = false;
      this.check();
    };
    // rAF does not run in a hidden tab; a task does.
    if (document.visibilityState === "visible") requestAnimationFrame(run);
    else setTimeout(run, 0);
  }

  private holds(): boolean | null {
    try {
      return criteriaHold(this.criteria, {
        url: location.href,
        exists: (selector) => document.querySelector(selector) !== null,
        text: () => (document.body ?? document.documentElement)?.innerText ?? "",
      });
    } catch (err) {
      this.stop();
      this.onInvalid(err instanceof Error ? err.message : String(err));
      return null;
    }
  }

  private check(): void {
    if (this.done) return;
    const ok = this.holds();
    if (ok === null) return;
    if (!ok) {
      clearTimeout(this.stableTimer);
      this.stableTimer = undefined;
      return;
    }
    this.stableTimer ??= setTimeout(() => {
      this.stableTimer = undefined;
      if (this.done || !this.holds()) return;
      this.stop();
      this.onHeld();
    }, this.criteria.stable_ms);
  }
}
