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
import { browser } from "wxt/browser";
import { defineUnlistedScript } from "wxt/utils/define-unlisted-script";
import { OVERLAY_HOST_GLOBAL } from "../src/shared/messages/hands.ts";
import { liveHere } from "../src/shared/messages/keepalive.ts";
import { CriteriaWatch } from "../src/features/help/watch.ts";
import type { OverlayPush, OverlayRequest, OverlayView } from "../src/shared/messages/overlay.ts";
import { OverlayHost } from "../src/features/overlay/ui/host.ts";
import { ApprovalPanel } from "../src/features/overlay/ui/approval-panel.ts";
import { HelpPanel } from "../src/features/overlay/ui/panel.ts";
import { Pill } from "../src/features/overlay/ui/pill.ts";
import { RecordPanel } from "../src/features/overlay/ui/record-panel.ts";

/** While shown, the overlay asks again this often: it notices a restarted worker, and keeps a stopped one waking up. */
const REFRESH_MS = 20_000;

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

  const send = (msg: OverlayRequest) => browser.runtime.sendMessage(msg).catch(() => null) as Promise<unknown>;

  const ensureHost = (): OverlayHost => {
    if (!host) {
      host = new OverlayHost();
      // The hands script (same world) leaves the person's presses on the pill and the help panel out.
      (globalThis as Record<string, unknown>)[OVERLAY_HOST_GLOBAL] = host.host;
      pill = new Pill(host.root, (action) => void send({ type: `overlay.${action}` }));
    }
    return host;
  };

  const render = (view: OverlayView | null) => {
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
      panel = new HelpPanel(root, help, {
        done: (note) => void send({ type: "help.done", help_id: helpId, note }),
        cancel: (note) => void send({ type: "help.cancel", help_id: helpId, note }),
        note: (note) => void send({ type: "help.note", help_id: helpId, note }),
      });
      if (help.until) {
        const until = help.until;
        watch = new CriteriaWatch(
          until,
          () => void send({ type: "help.completed", help_id: helpId, note: currentNote() }),
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
      approvalPanel = new ApprovalPanel(root, approval, (allow) => void send({ type: "approval.answer", approval_id: approvalId, allow }));
    }

    clearInterval(refresh);
    refresh = view ? setInterval(() => void hello(), REFRESH_MS) : undefined;
    if (!wanted) {
      host?.dispose();
      approvalPanel?.dispose();
      host = pill = recordPanel = approvalPanel = null;
    }
  };

  const currentNote = () => panel?.currentNote() ?? "";

  const hello = async () => render(((await send({ type: "overlay.hello" })) as OverlayView | null | undefined) ?? null);

  browser.runtime.onMessage.addListener((msg: OverlayPush, sender, sendResponse) => {
    if (sender.id !== browser.runtime.id || sender.tab) return false;
    switch (msg?.type) {
      case "overlay.view":
        render(msg.view);
        return false;
      case "overlay.capture":
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
