/**
 * The worker's side of the approval panel's text (entrypoints/approval-text/, shared/messages/approval-text.ts): only
 * bsk's own page, in a frame of a tab whose shown approval it names, is sent what the panel says. An allowed call acts
 * on the tab once that frame is gone: while it shows, the browser refuses bsk's debugger on the tab.
 */
import { browser, type Browser } from "wxt/browser";
import { APPROVAL_TEXT_PAGE, APPROVAL_TEXT_PORT, type ApprovalTextToPage } from "../../shared/messages/approval-text.ts";
import { FramesByTab, framedPage } from "../overlay/own-frames.ts";
import { approvalView } from "./registry.ts";

const textState = { frames: new FramesByTab<{ port: Browser.runtime.Port }>() };

function onConnect(port: Browser.runtime.Port): void {
  if (port.name !== APPROVAL_TEXT_PORT) return;
  const framed = framedPage(port, APPROVAL_TEXT_PAGE, "approval");
  const view = framed && approvalView(framed.tabId);
  if (!framed || !view || view.id !== framed.value) return port.disconnect();
  const mine = { port };
  textState.frames.set(framed.tabId, mine);
  port.onDisconnect.addListener(() => textState.frames.drop(framed.tabId, mine));
  port.postMessage({ text: view.text, cause: view.cause, ...(view.origin && { origin: view.origin }) } satisfies ApprovalTextToPage);
}

/** Resolves once the tab's approval text frame is gone (at most a moment: features/overlay/own-frames.ts). */
export function approvalTextGone(tabId: number): Promise<void> {
  return textState.frames.gone(tabId);
}

export function installApprovalText(): void {
  browser.runtime.onConnect.addListener(onConnect);
}
