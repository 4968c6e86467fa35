/**
 * The service worker: wires the modules together. Listeners are registered synchronously at start-up so events
 * that wake a stopped worker (alarms, tab and window changes) reach them.
 */
import { browser, type Browser } from "wxt/browser";
import { defineBackground } from "wxt/utils/define-background";
import { installConsent } from "../src/features/borrow/consent.ts";
import { installLinkTracking } from "../src/features/borrow/links.ts";
import { installCdpListeners, installRunawayStop } from "../src/cdp/debugger.ts";
import { resume, takeOver } from "../src/features/control.ts";
import { connect, disconnectLocal, pair, unpair } from "../src/link/connection.ts";
import { connectRemote, disconnectRemote, installRemoteRouting, pairRemoteLink, renewIfDue } from "../src/link/remote/remote-link.ts";
import { installDialogTracking } from "../src/page/dialogs.ts";
import { installEffectNotices } from "../src/page/effects.ts";
import { installFrameTracking } from "../src/cdp/frames.ts";
import { installDiagnosticsCapture } from "../src/features/diagnostics/capture.ts";
import { installSnapshotStore } from "../src/page/snapshot/store.ts";
import { installOriginGuard } from "../src/features/guard/origins.ts";
import { installPromptWatch } from "../src/features/guard/prompts.ts";
import { installOwnPageRevival } from "../src/link/own-pages.ts";
import { installCrashWatch } from "../src/page/crash.ts";
import { installFileUrlGuard } from "../src/features/guard/file-url-guard.ts";
import { installDownloadTap } from "../src/features/files/download-tap.ts";
import { installFilenameRouter } from "../src/features/files/filename-router.ts";
import { installTabDownloads } from "../src/features/files/tab-downloads.ts";
import { installObserve } from "../src/features/observe.ts";
import { installHands } from "../src/features/hands/agent-input.ts";
import { installKeepalive } from "../src/link/keepalive.ts";
import { installPageWorldScript } from "../src/features/page-world-script.ts";
import { installDoorbell } from "../src/link/doorbell.ts";
import { installOverlay } from "../src/features/overlay/hub.ts";
import { installFaultHook } from "../src/session/input-mark.ts";
import { installAskFirstWatch } from "../src/features/approval/sites.ts";
import { installNavReasons } from "../src/cdp/nav-reasons.ts";
import { installOwnershipListeners } from "../src/session/ownership.ts";
import { installDragListeners } from "../src/features/borrow/drag.ts";
import { installRecorder } from "../src/features/recording/recorder.ts";
import { endByPerson, sessionsReady } from "../src/session/sessions.ts";
import { LOCAL, type PageMessage } from "../src/session/settings.ts";
import { localStorageLocked, lockSyncStorage } from "../src/session/storage-lock.ts";

const RECONNECT_ALARM = "reconnect";

/** Only our own pages (popup, connect page) may steer the worker. */
function fromOwnPage(sender: Browser.runtime.MessageSender): boolean {
  return sender.id === browser.runtime.id && (sender.url ?? "").startsWith(browser.runtime.getURL("/"));
}

async function onPageMessage(msg: PageMessage): Promise<unknown> {
  if (msg.type === "reconnect") await connect({ resume: true });
  else if (msg.type === "local_disconnect") await disconnectLocal();
  else if (msg.type === "remote_pair") return pairRemoteLink(msg.link);
  else if (msg.type === "remote_disconnect") await disconnectRemote();
  else if (msg.type === "stop_session") await endByPerson(msg.session_id, "stopped_by_person");
  else if (msg.type === "takeover_session") await takeOver(msg.session_id);
  else if (msg.type === "resume_session") await resume(msg.session_id);
  else if (msg.type === "pair") return pair(msg.code);
  else if (msg.type === "unpair") await unpair();
  return { ok: true };
}

export default defineBackground({
  type: "module",
  main() {
    void localStorageLocked();
    lockSyncStorage();
    installCdpListeners();
    installDialogTracking();
    installFrameTracking();
    installDiagnosticsCapture();
    installSnapshotStore();
    installOwnershipListeners();
    installDragListeners();
    installLinkTracking();
    installNavReasons();
    installFaultHook();
    installAskFirstWatch();
    installOwnPageRevival();
    installOverlay();
    installHands();
    installEffectNotices();
    installOriginGuard();
    installPromptWatch();
    installCrashWatch();
    installRunawayStop();
    installFileUrlGuard();
    installDownloadTap();
    installFilenameRouter();
    installTabDownloads();
    installObserve();
    installKeepalive();
    installPageWorldScript();
    installConsent();
    installRecorder();

    // Reconnects a dropped socket within 30 s, and wakes a stopped worker to do it.
    void browser.alarms.get(RECONNECT_ALARM).then(async (existing) => {
      if (!existing) await browser.alarms.create(RECONNECT_ALARM, { periodInMinutes: 0.5 });
    });
    browser.alarms.onAlarm.addListener((alarm) => {
      if (alarm.name === RECONNECT_ALARM) {
        void connect();
        void connectRemote();
        void renewIfDue();
      }
    });
    installRemoteRouting();
    installDoorbell();
    browser.runtime.onStartup.addListener(() => void connect());
    browser.runtime.onInstalled.addListener(() => void connect());
    browser.storage.onChanged.addListener((changes, area) => {
      if (area === "local" && (LOCAL.port in changes || LOCAL.label in changes)) void connect({ force: true });
    });
    browser.runtime.onMessage.addListener((msg: PageMessage, sender, sendResponse) => {
      if (!fromOwnPage(sender)) return false;
      onPageMessage(msg).then(sendResponse, (err: unknown) => sendResponse({ ok: false, error: String(err) }));
      return true;
    });

    void sessionsReady();
    void connect();
    void renewIfDue().finally(() => void connectRemote());
  },
});
