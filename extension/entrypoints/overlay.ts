/**
 * The overlay content script, in every top-level page (manifest content_scripts, document_end). It draws only what
 * the service worker says this tab should show: the control pill and glow in a live session's tabs, the help panel
 * during request-help, the approval panel while a call waits for the person's Allow. In the person's own tabs it does
 * nothing, and it asks the worker for its view only when the page loaded while some session was live (LIVE_GLOBAL,
 * set by the keep-alive script); a tab that joins a session later is sent its view.
 *
 * Built as an unlisted script listed in the manifest by hand (wxt.config.ts) rather than a WXT content script:
 * WXT's content-script context announces itself to the page with a DOM event that a page could also send to
 * switch the overlay off.
 */
import { browser, type Browser } from "wxt/browser";
import { defineUnlistedScript } from "wxt/utils/define-unlisted-script";
import { t } from "../src/shared/i18n.ts";
import { OVERLAY_HOST_GLOBAL } from "../src/shared/messages/hands.ts";
import { NOTE_PAGE } from "../src/shared/messages/note.ts";
import { APPROVAL_TEXT_PAGE } from "../src/shared/messages/approval-text.ts";
import { liveHere } from "../src/shared/messages/keepalive.ts";
import { CriteriaWatch } from "../src/features/help/watch.ts";
import {
  OVERLAY_LIFE_PORT,
  OVERLAY_MARK_GLOBAL,
  type OverlayPush,
  type OverlayRequest,
  type OverlayView,
} from "../src/shared/messages/overlay.ts";
import { OverlayHost } from "../src/features/overlay/ui/host.ts";
import { ApprovalPanel } from "../src/features/overlay/ui/approval-panel.ts";
import { HelpPanel } from "../src/features/overlay/ui/panel.ts";
import { Pill } from "../src/features/overlay/ui/pill.ts";
import { RecordPanel } from "../src/features/overlay/ui/record-panel.ts";

/** While shown, the overlay asks again this often: it notices a restarted worker, and keeps a stopped one waking up. */
const REFRESH_MS = 20_000;
/** After the life port breaks, whether the extension went is looked at after 50, 100, … 1600 ms. */
const CUT_OFF_FIRST_MS = 50;
const CUT_OFF_LAST_MS = 1_600;

export default defineUnlistedScript(() => {
  if (window.top !== window || (globalThis as { __bskOverlay?: boolean }).__bskOverlay) return;
  (globalThis as { __bskOverlay?: boolean }).__bskOverlay = true;

  let host: OverlayHost | null = null;
  let pill: Pill | null = null;
  let panel: HelpPanel | null = null;
  let recordPanel: RecordPanel | null = null;
  let approvalPanel: ApprovalPanel | null = null;
  let watch: CriteriaWatch | null = null;
  let refresh: ReturnType<typeof setInterval> | undefined;

  let life: Browser.runtime.Port | null = null;

  /** Whether this script's extension is still there: a reload or removal leaves the script running, cut off. */
  const extensionHere = () => {
    try {
      return Boolean(browser.runtime?.id);
    } catch {
      return false;
    }
  };

  const send = (msg: OverlayRequest): Promise<unknown> => {
    // In a cut-off script sendMessage throws at once rather than rejecting.
    if (!extensionHere()) return Promise.resolve(null);
    return browser.runtime.sendMessage(msg).catch(() => null);
  };

  /**
   * While anything is drawn: a port whose break says the worker went, stopped or with the extension (reloaded, updated,
   * removed). A stopped worker is woken by asking it again. A reload cuts this script off a moment after the break,
   * and no event tells of that: it is looked for a few times over the next two seconds, and the drawing goes.
   */
  const holdLife = () => {
    if (life || !extensionHere()) return;
    const port = browser.runtime.connect({ name: OVERLAY_LIFE_PORT });
    life = port;
    port.onDisconnect.addListener(() => {
      if (life === port) life = null;
      void hello();
      lookForCutOff(CUT_OFF_FIRST_MS);
    });
  };

  const lookForCutOff = (after: number) =>
    setTimeout(() => {
      if (!extensionHere()) takeDown();
      else if (after < CUT_OFF_LAST_MS) lookForCutOff(after * 2);
    }, after);

  /** Everything drawn goes, touching no extension API (a cut-off script's calls throw). */
  const takeDown = () => {
    clearInterval(refresh);
    refresh = undefined;
    watch?.stop();
    panel?.dispose();
    recordPanel?.dispose();
    approvalPanel?.dispose();
    pill?.dispose();
    host?.dispose();
    host = pill = panel = recordPanel = approvalPanel = watch = null;
  };

  const dropLife = () => {
    life?.disconnect();
    life = null;
  };

  const ensureHost = (): OverlayHost => {
    if (!host) {
      host = new OverlayHost();
      // The hands script (same world) leaves the person's presses on the pill and the help panel out.
      (globalThis as Record<string, unknown>)[OVERLAY_HOST_GLOBAL] = host.host;
      // The worker reads it (scripting.executeScript in this world) to find this very host (page/own-overlay.ts).
      (globalThis as Record<string, unknown>)[OVERLAY_MARK_GLOBAL] = host.mark;
      pill = new Pill(
        host.root,
        (action) => void send({ type: `overlay.${action}` }),
        (hidden) => {
          void send({ type: "overlay.hidden", hidden });
          titleSaysHidden(hidden);
        },
      );
    }
    return host;
  };

  const render = (view: OverlayView | null) => {
    if (!extensionHere()) return takeDown();
    const wanted = view !== null && (view.hints || view.help !== null || view.record !== null || view.approval !== null);
    if (!wanted && !host) return;
    const root = ensureHost().root;
    pill!.update(view);

    const help = view?.help ?? null;
    if (panel && panel.id !== help?.id) {
      panel.dispose();
      panel = null;
      watch?.stop();
      watch = null;
    }
    if (help && !panel) {
      const helpId = help.id;
      const note = {
        url: `${browser.runtime.getURL(NOTE_PAGE)}?help=${encodeURIComponent(helpId)}`,
        origin: `chrome-extension://${browser.runtime.id}`,
      };
      panel = new HelpPanel(root, help, note, {
        done: () => void send({ type: "help.done", help_id: helpId }),
        cancel: () => void send({ type: "help.cancel", help_id: helpId }),
      });
      if (help.until) {
        const until = help.until;
        watch = new CriteriaWatch(
          until,
          () => void send({ type: "help.completed", help_id: helpId }),
          (message) => void send({ type: "help.invalid", help_id: helpId, message }),
        );
        watch.start();
      }
    }

    const record = view?.record ?? null;
    if (record && recordPanel) recordPanel.update(record);
    else if (record) recordPanel = new RecordPanel(root, record, () => void send({ type: "record.panel_finish" }));
    else {
      recordPanel?.dispose();
      recordPanel = null;
    }

    const approval = view?.approval ?? null;
    if (approvalPanel && approvalPanel.id !== approval?.id) {
      approvalPanel.dispose();
      approvalPanel = null;
    }
    if (approval && approvalPanel) approvalPanel.update(approval);
    else if (approval) {
      const approvalId = approval.id;
      const textUrl = `${browser.runtime.getURL(APPROVAL_TEXT_PAGE)}?approval=${encodeURIComponent(approvalId)}`;
      approvalPanel = new ApprovalPanel(
        root,
        approval,
        textUrl,
        (allow) => void send({ type: "approval.answer", approval_id: approvalId, allow }),
      );
    }

    clearInterval(refresh);
    refresh = view ? setInterval(() => void hello(), REFRESH_MS) : undefined;
    if (wanted) holdLife();
    else {
      dropLife();
      pill?.dispose();
      host?.dispose();
      approvalPanel?.dispose();
      host = pill = recordPanel = approvalPanel = null;
    }
  };

  /** The tab's title (the Agent Window's, while the tab is its active one) says the page hides the pill. */
  const titleSaysHidden = (hidden: boolean) => {
    const mark = `${t("pill.hidden_title")} · `;
    if (hidden && !document.title.startsWith(mark)) document.title = mark + document.title;
    else if (!hidden && document.title.startsWith(mark)) document.title = document.title.slice(mark.length);
  };

  const hello = async () => render(((await send({ type: "overlay.hello" })) as OverlayView | null | undefined) ?? null);

  browser.runtime.onMessage.addListener((msg: OverlayPush, sender, sendResponse) => {
    if (sender.id !== browser.runtime.id || sender.tab) return false;
    switch (msg?.type) {
      case "overlay.view":
        render(msg.view);
        return false;
      case "overlay.capture":
        pill?.setCapturing(msg.hidden);
        host?.setCaptureHidden(msg.hidden);
        sendResponse(true);
        return false;
      case "help.recheck":
        watch?.recheck();
        return false;
      default:
        return false;
    }
  });

  if (liveHere()) void hello();
});
