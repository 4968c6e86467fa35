/** navigate / navigate.back / navigate.forward / reload: start a navigation, then wait on CDP events. */
import type { ParsedParams, Result } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";
import { send } from "../cdp/debugger.ts";
import type { Milestone } from "../page/lifecycle.ts";
import { pageState, watching } from "../page/page-state.ts";
import { assertOriginAllowed } from "./guard/origins.ts";
import { assertSessionMayOpen } from "../session/file-urls.ts";
import { restrictedUrlError } from "../session/scope.ts";
import { resolveTab } from "../session/sessions.ts";
import { requestNeverSent } from "../shared/net-errors.ts";
import { normalizeUrl } from "../../../protocol/urls.ts";
import { sending } from "../session/input-mark.ts";

type NavigationResult = Result<"navigate">;

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

export async function goHistory(
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

/** Loads `p.url` in the tab and waits for `p.wait_until`. */
export async function navigate(p: ParsedParams<"navigate">, signal: AbortSignal): Promise<NavigationResult> {
  const { session, tab, tabId } = await resolveTab(p);
  const url = normalizeUrl(p.url);
  await assertSessionMayOpen(session, url, tabId);
  assertOwnBlob(url, tab.url ?? "", tabId);
  return watching(tabId, signal, async (watch) => {
    const r = await sending({ tabId }, () =>
      send<{ loaderId?: string; errorText?: string; isDownload?: boolean }>(tabId, "Page.navigate", { url }, signal),
    );
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
}

export async function reload(p: ParsedParams<"reload">, signal: AbortSignal): Promise<NavigationResult> {
  const { tabId } = await resolveTab(p);
  return watching(tabId, signal, async (watch) => {
    await sending({ tabId }, () => send(tabId, "Page.reload", { ignoreCache: p.hard }, signal));
    await watch.until(p.wait_until, signal);
    return navigationResult(tabId, true, signal);
  });
}
