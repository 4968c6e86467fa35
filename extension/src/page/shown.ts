/**
 * Whether a tab's page may be about to be shown: a tab just brought to the front (by this call, by an earlier one,
 * by the person) whose page is still hidden will paint its next frame soon; one hidden for longer (its window
 * minimized, or covered where the system tells the browser so) paints nothing until the person shows it.
 */
import { browser } from "wxt/browser";
import { attachedOrAttaching } from "../cdp/debugger.ts";
import type { TabAhead } from "../cdp/refs/target.ts";
import { ownedTabNow, resolveTab } from "../session/sessions.ts";

/** Tab → the session whose current call brought it to the front (frontTab). */
const shownNow = new Map<number, string>();
/** Tab → when it last became its window's active tab. */
const activatedAt = new Map<number, number>();
/** A hidden page this soon after its tab came to the front may still be on its way to being shown. */
const SHOWING_MS = 1000;

export function installShownTabs(): void {
  browser.tabs.onActivated.addListener(({ tabId }) => activatedAt.set(tabId, performance.now()));
  browser.tabs.onRemoved.addListener((tabId) => {
    activatedAt.delete(tabId);
    shownNow.delete(tabId);
  });
}

/** The call brought `tabId` to the front (its window not minimized); the effect watch armed next takes it. */
export function showing(tabId: number, sessionId: string): void {
  shownNow.set(tabId, sessionId);
}

/**
 * The session's call has ended: a mark it left (it failed before arming its effect watch) would make a later action
 * wait for a frame that a page hidden for good never paints.
 */
export function endShowing(sessionId: string): void {
  for (const [tabId, owner] of shownNow) if (owner === sessionId) shownNow.delete(tabId);
}

/** Whether a hidden page in `tabId` may be about to be shown; `take` ends this call's mark (showing()). */
export function paintsSoon(tabId: number, take = false): boolean {
  const at = activatedAt.get(tabId);
  const now = take ? shownNow.delete(tabId) : shownNow.has(tabId);
  return now || (at !== undefined && performance.now() - at < SHOWING_MS);
}

/**
 * The tab a call acts on or captures, shown: a background tab renders no frames and has no focus, so hover, wheel and
 * typed text would not reach it, and a screenshot of it would wait for a frame that never comes. Bringing it to the
 * front of its own window (the Agent Window) is what a person would do; it does not change the session's current tab.
 */
export async function frontTab(p: { session_id: string; tab_id?: number }): Promise<Awaited<ReturnType<typeof resolveTab>>> {
  const r = await resolveTab(p);
  if (!r.tab.active) {
    await browser.tabs.update(r.tabId, { active: true });
    // Shown now, unless its window is minimized: its page may still be hidden when the effect is read.
    const win = await browser.windows.get(r.tab.windowId).catch(() => undefined);
    if (win?.state !== "minimized") showing(r.tabId, p.session_id);
  }
  return r;
}

/**
 * frontTab begun, for a call whose first page work only reads (a ref's lookup, refs/resolve.ts resolveWith): the tab,
 * when the session's records say it owns it and bsk's debugger is on it already, is known at once, and the browser's
 * checks (the tab exists, what it shows, brought to the front) run beside that read. Nothing that changes the page is
 * sent before they pass, no attachment is started for the read, and their refusal is the call's error.
 */
export function frontTabAhead(p: { session_id: string; tab_id?: number }): TabAhead & {
  checked: Promise<Awaited<ReturnType<typeof resolveTab>>>;
} {
  const owned = ownedTabNow(p);
  // The browser detaches bsk from a tab that went to a browser page: such a tab waits for its checks.
  const tabId = owned !== null && attachedOrAttaching(owned) ? owned : null;
  const checked = frontTab(p);
  // Awaited by the lookup's caller on every path; this only keeps an early refusal from being reported unhandled.
  checked.catch(() => undefined);
  return { tabId, checked };
}

/**
 * A read that changes nothing in the page (a lookup, arming bsk's own observers), run beside the tab's checks when the
 * session's records already name the tab; their refusal wins over whatever the read answered.
 */
export async function besideChecks<T>(
  ahead: ReturnType<typeof frontTabAhead>,
  read: (tabId: number) => Promise<T>,
): Promise<{ tabId: number; value: T }> {
  if (ahead.tabId === null) {
    const { tabId } = await ahead.checked;
    return { tabId, value: await read(tabId) };
  }
  const [value, checked] = await Promise.allSettled([read(ahead.tabId), ahead.checked]);
  if (checked.status === "rejected") throw checked.reason;
  if (value.status === "rejected") throw value.reason;
  return { tabId: ahead.tabId, value: value.value };
}
