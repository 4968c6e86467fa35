/**
 * A page of ours opened before the extension finished loading (connect.html passed on Chromium's command line,
 * as the tests do) is refused with ERR_BLOCKED_BY_CLIENT, and reloading it from the error page is refused too.
 * Navigating the tab again from the extension itself loads it, so the worker does that once per tab.
 */
import { browser } from "wxt/browser";

const revived = new Set<number>();

function isOwnPage(url: string | undefined): url is string {
  return !!url && url.startsWith(browser.runtime.getURL("/")) && !url.endsWith("/background.js");
}

function revive(tabId: number, url: string): void {
  if (revived.has(tabId)) return;
  revived.add(tabId);
  browser.tabs.update(tabId, { url }).catch(() => revived.delete(tabId));
}

export function installOwnPageRevival(): void {
  browser.webNavigation.onErrorOccurred.addListener((d) => {
    if (d.frameId === 0 && isOwnPage(d.url) && d.error.includes("BLOCKED_BY_CLIENT")) revive(d.tabId, d.url);
  });
  // Pages blocked before this worker started: a tab on our URL with no live page of ours in it.
  void Promise.all([browser.tabs.query({}), browser.runtime.getContexts({ contextTypes: ["TAB"] })]).then(([tabs, contexts]) => {
    const live = new Set(contexts.map((c) => c.tabId));
    for (const t of tabs) if (t.id !== undefined && isOwnPage(t.url) && !live.has(t.id)) revive(t.id, t.url);
  });
}
