/**
 * Service-worker life. Chrome stops an idle worker after ~30 s and may stop it at any time; state that matters is
 * in chrome.storage.session, and this module makes the rest come back:
 * - the keep-alive content script (entrypoints/keepalive.ts, registered while some session is live:
 *   session/live-script.ts) pings from every tab of a live session, so a stopped worker is woken within seconds and
 *   reconnects (background.ts connects at start-up);
 * - on wake-up the worker re-adopts its debugger attachments: the owned tabs it was still attached to (attachments
 *   outlive the worker) are attached again in cdp/debugger.ts, which re-runs the on-attach hooks (console, network, crash
 *   capture), so events flow again without waiting for the next command.
 * Work that was in flight when the worker died is not redone: the daemon saw the link drop and reported it unknown.
 */
import { browser } from "wxt/browser";
import { attach } from "../cdp/debugger.ts";
import { KEEPALIVE } from "../shared/messages/keepalive.ts";
import { allSessions, ownerOfTab, sessionsReady } from "../session/sessions.ts";
import { reconcileLiveScript } from "../session/live-script.ts";
import { SESSION } from "../session/settings.ts";

const keepaliveState = {
  /** Tabs already told to ping (a tab that joins a session after its page loaded is told once). */
  told: new Set<number>(),
};

export function installKeepalive(): void {
  browser.runtime.onMessage.addListener((msg: { type?: string }, sender, sendResponse) => {
    if (msg?.type !== KEEPALIVE.ping || sender.id !== browser.runtime.id || sender.tab?.id === undefined) return false;
    const tabId = sender.tab.id;
    void sessionsReady().then(() => sendResponse({ live: ownerOfTab(tabId) !== undefined }));
    return true;
  });
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "session" && SESSION.sessions in changes) void onSessionsChanged();
  });
  void sessionsReady().then(async () => {
    await onSessionsChanged();
    await reviveAttachments();
  });
}

/** Keeps the script registered while some session is live, and tells tabs that joined or left a session. */
async function onSessionsChanged(): Promise<void> {
  const owned = new Set(allSessions().flatMap((s) => Object.keys(s.tabs).map(Number)));
  await reconcileLiveScript();
  for (const id of [...keepaliveState.told]) {
    if (owned.has(id)) continue;
    keepaliveState.told.delete(id);
    browser.tabs.sendMessage(id, { type: KEEPALIVE.stop }).catch(() => undefined);
  }
  for (const id of owned) {
    if (keepaliveState.told.has(id)) continue;
    keepaliveState.told.add(id);
    void tellJoined(id);
  }
}

/**
 * Every frame's hands script hears it; the keep-alive script answers from the top frame. A page that loaded before
 * the script was registered (a borrowed tab) has none, and gets it now. A tab with no page yet (about:blank, still
 * loading) gets the registered script with its next page.
 */
async function tellJoined(tabId: number): Promise<void> {
  const answered = await browser.tabs.sendMessage(tabId, { type: KEEPALIVE.start }).catch(() => undefined);
  if (answered === true) return;
  await browser.scripting.executeScript({ target: { tabId, frameIds: [0] }, files: ["/keepalive.js"] }).catch(() => undefined);
}

/** Re-attach to the owned tabs the debugger is still attached to (this worker's predecessor attached them). */
async function reviveAttachments(): Promise<void> {
  const targets = await browser.debugger.getTargets().catch(() => []);
  await Promise.all(
    targets
      .filter((t) => t.type === "page" && t.attached && t.tabId !== undefined && ownerOfTab(t.tabId))
      .map((t) => attach(t.tabId!).catch((err: unknown) => console.warn(`bsk: could not re-adopt tab ${t.tabId}`, err))),
  );
}
