/**
 * Waiting for navigations, driven by CDP events only (no polling, no fixed sleeps).
 * A NavigationWatch records the main frame's commits and lifecycle events from the moment it is created,
 * so a caller creates it *before* starting the navigation and nothing is missed.
 */
import { browser } from "wxt/browser";
import { BskError } from "../../../protocol/errors.ts";
import { raceAbort } from "../shared/abort.ts";
import { subscribe } from "../cdp/debugger.ts";

export type Milestone = "commit" | "domcontentloaded" | "load" | "networkidle";

/** Page.lifecycleEvent names; "commit" is recorded from Page.frameNavigated. */
const EVENT_NAME: Record<Milestone, string> = {
  commit: "commit",
  domcontentloaded: "DOMContentLoaded",
  load: "load",
  networkidle: "networkIdle",
};

interface Visit {
  url: string;
  /** null for a same-document navigation (fragment, history.pushState). */
  loaderId: string | null;
}

export class NavigationWatch {
  private readonly reached = new Map<string, Set<string>>();
  /** Main-frame documents committed since the watch began, oldest first. */
  private readonly commits: string[] = [];
  readonly visits: Visit[] = [];
  private detachReason: string | null = null;
  private wake: (() => void) | null = null;
  private readonly off: () => void;

  constructor(
    private readonly tabId: number,
    private readonly mainFrame: string,
  ) {
    this.off = subscribe(
      tabId,
      (method, params) => this.onEvent(method, params),
      (reason) => {
        this.detachReason = reason;
        this.poke();
      },
    );
  }

  dispose(): void {
    this.off();
    this.poke();
  }

  private mark(loaderId: string, name: string): void {
    let names = this.reached.get(loaderId);
    if (!names) this.reached.set(loaderId, (names = new Set()));
    names.add(name);
  }

  private onEvent(method: string, p: Record<string, any>): void {
    if (method === "Page.lifecycleEvent") {
      if (p.frameId !== this.mainFrame) return;
      this.mark(p.loaderId, p.name);
    } else if (method === "Page.frameNavigated") {
      const frame = p.frame;
      if (frame.parentId) return;
      this.commits.push(frame.loaderId);
      this.visits.push({ url: frame.url + (frame.urlFragment ?? ""), loaderId: frame.loaderId });
      this.mark(frame.loaderId, "commit");
      // A page restored from the back/forward cache is already loaded and sends no lifecycle events.
      if (p.type === "BackForwardCacheRestore") for (const name of Object.values(EVENT_NAME)) this.mark(frame.loaderId, name);
    } else if (method === "Page.navigatedWithinDocument") {
      if (p.frameId !== this.mainFrame) return;
      this.visits.push({ url: p.url, loaderId: null });
    } else {
      return;
    }
    this.poke();
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private async next(signal: AbortSignal): Promise<void> {
    if (this.detachReason) throw await this.detached(this.detachReason);
    await raceAbort(new Promise<void>((resolve) => (this.wake = resolve)), signal);
  }

  /**
   * Why the attachment ended. The browser ends it (`target_closed`) both when the tab closes and, with the tab still
   * open, the moment a frame in it starts showing another extension's page (debugger.ts EXTENSION_FRAME).
   */
  private async detached(reason: string): Promise<BskError> {
    const open = reason === "target_closed" && !!(await browser.tabs.get(this.tabId).catch(() => undefined));
    if (!open) {
      return new BskError("cdp_failed", `tab ${this.tabId} went away while waiting (${reason})`, {
        data: { reason: "tab_detached", tab_id: this.tabId },
      });
    }
    return new BskError(
      "cdp_failed",
      `the browser ended bsk's debugging of tab ${this.tabId} while waiting (the tab is still open): a frame in it shows another extension's page`,
      {
        hint:
          "A frame of another extension (e.g. a password manager's menu) or bsk's own help panel shows in this tab, and the browser lets no " +
          "extension debug a tab while it does; what the page did since is not known. Once it is gone (the person closes it, or finishes " +
          "helping), the next call attaches again: re-observe before acting.",
        data: { reason: "extension_frame", tab_id: this.tabId },
      },
    );
  }

  /**
   * Resolves when the document of `loaderId` reaches the milestone. Without a loader id: when the next main-frame
   * navigation does (a same-document one counts at once). If a newer document replaces the awaited one
   * (a client-side redirect), the newer one is followed.
   */
  async until(milestone: Milestone, signal: AbortSignal, loaderId?: string): Promise<void> {
    const name = EVENT_NAME[milestone];
    let target = loaderId;
    for (;;) {
      if (target === undefined && this.visits[0]) {
        if (this.visits[0].loaderId === null) return;
        target = this.visits[0].loaderId;
      }
      if (target !== undefined) {
        const at = this.commits.indexOf(target);
        if (at >= 0 && at < this.commits.length - 1) target = this.commits[this.commits.length - 1]!;
        if (this.reached.get(target)?.has(name)) return;
      }
      await this.next(signal);
    }
  }

  /** Resolves with the first URL the main frame reaches that matches, once its document reaches the milestone. */
  async untilUrl(matches: (url: string) => boolean, milestone: Milestone, signal: AbortSignal): Promise<string> {
    for (;;) {
      const visit = this.visits.find((v) => matches(v.url));
      if (visit) {
        if (visit.loaderId !== null) await this.until(milestone, signal, visit.loaderId);
        return visit.url;
      }
      await this.next(signal);
    }
  }
}
