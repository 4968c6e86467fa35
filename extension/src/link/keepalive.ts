/**
 * Service-worker life. Chrome stops an idle worker after ~30 s and may stop it at any time; state that matters is
 * in chrome.storage.session, and this module makes the rest come back:
 * - the keep-alive content script (entrypoints/keepalive.ts, registered here) pings from every tab of a live
 *   session, so a stopped worker is woken within seconds and reconnects (background.ts connects at start-up);
 * - on wake-up the worker re-adopts its debugger attachments: the owned tabs it was still attached to (attachments
 *   outlive the worker) are attached again in cdp/debugger.ts, which re-runs the on-attach hooks (console, network, crash
 *   capture), so events flow again without waiting for the next command.
 * Work that was in flight when the worker died is not redone: the daemon saw the link drop and reported it unknown.
 */
import { browser } from "wxt/browser";
import { attach } from "../cdp/debugger.ts";
import { KEEPALIVE, LIVE_ANY_KEY } from "../shared/messages/keepalive.ts";
import { allSessions, ownerOfTab, sessionsReady } from "../session/sessions.ts";
import { SESSION } from "../session/settings.ts";

const SCRIPT_ID = "bsk-keepalive";
/** Tabs already told to ping (a tab that joins a session after its page loaded is told once). */
const told = new Set<number>();

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
  void registerScript();
  void sessionsReady().then(async () => {
    await onSessionsChanged();
    await reviveAttachments();
  });
}

/** Keeps LIVE_ANY_KEY current and tells tabs that joined a session to start pinging. */
async function onSessionsChanged(): Promise<void> {
  const owned = new Set(allSessions().flatMap((s) => Object.keys(s.tabs).map(Number)));
  await browser.storage.local.set({ [LIVE_ANY_KEY]: owned.size > 0 }).catch(() => undefined);
  for (const id of [...told]) if (!owned.has(id)) told.delete(id);
  for (const id of owned) {
    if (told.has(id)) continue;
    told.add(id);
    // A tab whose page has no content script yet (about:blank, still loading) gets it with its next page.
    browser.tabs.sendMessage(id, { type: KEEPALIVE.start }).catch(() => undefined);
  }
}

/** The content script is registered once per install (it persists), not listed in the manifest. */
async function registerScript(): Promise<void> {
  try {
    const existing = await browser.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
    if (existing.length) return;
    await browser.scripting.registerContentScripts([
      {
        id: SCRIPT_ID,
        matches: ["<all_urls>"],
        js: ["keepalive.js"],
        runAt: "document_start",
        allFrames: false,
        persistAcrossSessions: true,
      },
    ]);
  } catch (err) {
    console.warn("bsk: could not register the keep-alive script", err);
  }
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
