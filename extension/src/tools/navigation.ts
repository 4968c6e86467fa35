/** navigate / navigate.back / navigate.forward / reload: start a navigation, then wait on CDP events. */
import { browser } from "wxt/browser";
import type { Result } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";
import type { navigationMethods } from "../../../protocol/methods/navigation.ts";
import { mainFrameId, send } from "../cdp/debugger.ts";
import type { FamilyHandlers } from "../shared/handler.ts";
import { NavigationWatch, type Milestone } from "../page/lifecycle.ts";
import { assertOriginAllowed } from "../features/guard/origins.ts";
import { assertSessionMayOpen } from "../session/file-urls.ts";
import { restrictedUrlError } from "../session/scope.ts";
import { resolveTab } from "../session/sessions.ts";
import { requestNeverSent } from "../shared/net-errors.ts";
import { normalizeUrl } from "../shared/urls.ts";
import { sending } from "../session/input-mark.ts";

type NavigationResult = Result<"navigate">;

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

const ERROR_PAGE_COMMIT_CAP_MS = 2000;

/** Waits for `work` at most `ms`, ignoring its outcome. */
async function settle(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

async function navigationResult(tabId: number, navigated: boolean, signal: AbortSignal): Promise<NavigationResult> {
  return { tab_id: tabId, ...(await pageState(tabId, signal)), navigated };
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

async function goHistory(
  p: { session_id: string; tab_id?: number; wait_until: Milestone },
  signal: AbortSignal,
  delta: 1 | -1,
): Promise<NavigationResult> {
  const { session, tabId } = await resolveTab(p);
  return watching(tabId, signal, async (watch) => {
    const history = await send<{ currentIndex: number; entries: { id: number; url: string }[] }>(
      tabId,
      "Page.getNavigationHistory",
      {},
      signal,
    );
    const entry = history.entries[history.currentIndex + delta];
    if (!entry) return navigationResult(tabId, false, signal);
    await assertSessionMayOpen(session, entry.url, tabId);
    // A page from the back-forward cache comes back without a request the blocking rules would see.
    assertOriginAllowed(session, entry.url, tabId);
    await sending({ tabId }, () => send(tabId, "Page.navigateToHistoryEntry", { entryId: entry.id }, signal));
    await watch.until(p.wait_until, signal);
    return navigationResult(tabId, true, signal);
  });
}

/** A blob: URL is navigated only within the origin that made it (the tab's own page). */
function assertOwnBlob(url: string, current: string, tabId: number): void {
  if (!/^blob:/i.test(url)) return;
  const origin = URL.parse(url.slice(5))?.origin;
  if (!origin || origin === "null" || origin !== URL.parse(current)?.origin) throw restrictedUrlError(url, tabId);
}

export const navigationHandlers: FamilyHandlers<typeof navigationMethods> = {
  navigate: async (p, { signal }) => {
    const { session, tab, tabId } = await resolveTab(p);
    const url = normalizeUrl(p.url);
    await assertSessionMayOpen(session, url, tabId);
    assertOwnBlob(url, tab.url ?? "", tabId);
    return watching(tabId, signal, async (watch) => {
      const r = await sending({ tabId }, () => send<{ loaderId?: string; errorText?: string; isDownload?: boolean }>(tabId, "Page.navigate", { url }, signal));
      if (r.errorText) {
        // The error page commits next; until it has, the tab answers no CDP command ("Not attached to an active page").
        if (r.loaderId) await settle(watch.until("commit", signal, r.loaderId), ERROR_PAGE_COMMIT_CAP_MS);
        throw new BskError("cdp_failed", `could not load ${url}: ${r.errorText}`, {
          hint: "The page did not load (see data.error_text); check the URL and that the site is reachable.",
          data: {
            reason: "navigation_failed",
            error_text: r.errorText,
            url,
            tab_id: tabId,
            // The site saw nothing when the request never left the browser (a name that does not resolve, a refused
            // connection); otherwise it may have.
            effect_state: requestNeverSent(r.errorText) ? "none" : "unknown",
          },
        });
      }
      if (r.isDownload) return navigationResult(tabId, false, signal);
      // No loader id: a same-document navigation (fragment), complete once answered.
      if (r.loaderId) await watch.until(p.wait_until, signal, r.loaderId);
      return navigationResult(tabId, true, signal);
    });
  },

  "navigate.back": async (p, { signal }) => goHistory(p, signal, -1),

  "navigate.forward": async (p, { signal }) => goHistory(p, signal, 1),

  reload: async (p, { signal }) => {
    const { tabId } = await resolveTab(p);
    return watching(tabId, signal, async (watch) => {
      await sending({ tabId }, () => send(tabId, "Page.reload", { ignoreCache: p.hard }, signal));
      await watch.until(p.wait_until, signal);
      return navigationResult(tabId, true, signal);
    });
  },
};
