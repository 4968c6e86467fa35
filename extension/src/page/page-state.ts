/** What the tab shows now (URL, title, HTTP status) and a navigation watch around some work. */
import { browser } from "wxt/browser";
import { mainFrameId, send } from "../cdp/debugger.ts";
import { NavigationWatch } from "./lifecycle.ts";

/** One round trip; a literal array is cheap to return by value. Status 0 means not an HTTP document. */
const PAGE_STATE = `[location.href, document.title, performance.getEntriesByType("navigation")[0]?.responseStatus ?? 0]`;
/** A page stuck in a JS dialog does not evaluate; past this the answer comes from the tab instead. */
const PAGE_STATE_CAP_MS = 1000;

export async function pageState(tabId: number, signal: AbortSignal): Promise<{ url: string; title: string; status: number | null }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const capped = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), PAGE_STATE_CAP_MS)));
    const r = await Promise.race([send(tabId, "Runtime.evaluate", { expression: PAGE_STATE, returnByValue: true }, signal), capped]);
    const value = r?.exceptionDetails ? undefined : (r?.result?.value as [string, string, number] | undefined);
    if (value) return { url: value[0], title: value[1], status: value[2] || null };
  } catch (err) {
    if (signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
  }
  const tab = await browser.tabs.get(tabId);
  return { url: tab.url ?? "", title: tab.title ?? "", status: null };
}

/** Runs `fn` with a watch on the tab's main frame that records events from before the navigation starts. */
export async function watching<T>(tabId: number, signal: AbortSignal, fn: (watch: NavigationWatch) => Promise<T>): Promise<T> {
  const watch = new NavigationWatch(tabId, await mainFrameId(tabId, signal));
  try {
    return await fn(watch);
  } finally {
    watch.dispose();
  }
}
