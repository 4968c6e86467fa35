/**
 * bsk's own pages framed in the overlay's panels (the help panel's note field, the approval panel's text): extension
 * pages, cross-origin to the page, web-accessible only by the per-session dynamic URL. The worker hears such a page
 * only in a frame (never a tab of its own) and keeps the newest one of each tab. While one shows, the browser refuses
 * bsk's debugger on the whole tab (its dynamic URL counts as another extension's page, cdp/debugger.ts): what acts on
 * the tab after a panel waits for its frame to go.
 */
import { browser, type Browser } from "wxt/browser";

/** How long what follows a panel waits for its frame to go before it goes on anyway. */
const GONE_CAP_MS = 2000;

/**
 * The value of `param` in the URL of a port from bsk's own `page` (by its static or its per-session dynamic URL) in a
 * frame of a tab, with the tab; null for anything else. (webNavigation does not list extension frames, so where in the
 * tab the frame sits cannot be asked.)
 */
export function framedPage(port: Browser.runtime.Port, page: string, param: string): { tabId: number; value: string } | null {
  const s = port.sender;
  const tabId = s?.tab?.id;
  if (s?.id !== browser.runtime.id || tabId === undefined || s.frameId === undefined || s.frameId === 0 || !s.url) return null;
  const pages = [
    browser.runtime.getURL(page as Parameters<typeof browser.runtime.getURL>[0]),
    `chrome-extension://${browser.runtime.id}${page}`,
  ];
  if (!pages.some((p) => s.url!.startsWith(`${p}?`))) return null;
  const value = new URL(s.url).searchParams.get(param);
  return value ? { tabId, value } : null;
}

/** The frame of one of bsk's pages in each tab, and who waits for it to go. */
export class FramesByTab<T extends { port: Browser.runtime.Port }> {
  private readonly frames = new Map<number, T>();
  private readonly waiters = new Map<number, (() => void)[]>();

  get(tabId: number): T | undefined {
    return this.frames.get(tabId);
  }

  /** The newest frame heard replaces the tab's old one (a reload's), which is let go; returns the old one. */
  set(tabId: number, frame: T): T | undefined {
    const before = this.frames.get(tabId);
    this.frames.set(tabId, frame);
    before?.port.disconnect();
    return before;
  }

  /** The frame's port closed: its document is gone. */
  drop(tabId: number, frame: T): void {
    if (this.frames.get(tabId) !== frame) return;
    this.frames.delete(tabId);
    for (const gone of this.waiters.get(tabId) ?? []) gone();
    this.waiters.delete(tabId);
  }

  /** Resolves once the tab's frame is gone (at once when it has none), at most after GONE_CAP_MS. */
  gone(tabId: number): Promise<void> {
    if (!this.frames.has(tabId)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, GONE_CAP_MS);
      const waiters = this.waiters.get(tabId) ?? [];
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.waiters.set(tabId, waiters);
    });
  }
}
