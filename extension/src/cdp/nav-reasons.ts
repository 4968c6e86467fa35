/**
 * Why a tab's page asked to navigate, as the renderer said (CDP Page.frameRequestedNavigation: a link click, a
 * form, a script, a refresh). webNavigation calls a navigation by script (`location.href = …`) a "link", like a
 * click on a link; this tells them apart for the navigation events and recorded traces. Only tabs the debugger is
 * attached to (a session's, a recording's) are heard, which are the only ones that need it.
 */
import { knownMainFrameId, tapCdp } from "./debugger.ts";

const FRESH_MS = 30_000;

interface Requested {
  reason: string;
  url: string;
  at: number;
}

/** Tab id → frame id → the last navigation that frame's page requested (the newest MAX_FRAMES frames of the tab). */
const requested = new Map<number, Map<string, Requested>>();
/** Frames remembered per tab: a page's iframes come and go (each load a new frame id) for as long as the tab lives. */
export const MAX_FRAMES = 16;

export function installNavReasons(): void {
  tapCdp({
    onEvent(source, method, params) {
      if (method !== "Page.frameRequestedNavigation" || source.sessionId || params.disposition !== "currentTab") return;
      const frames = requested.get(source.tabId) ?? new Map<string, Requested>();
      const frameId = String(params.frameId);
      frames.delete(frameId);
      frames.set(frameId, { reason: String(params.reason ?? ""), url: String(params.url ?? ""), at: Date.now() });
      while (frames.size > MAX_FRAMES) frames.delete(frames.keys().next().value!);
      requested.set(source.tabId, frames);
    },
    onDetach(tabId) {
      requested.delete(tabId);
    },
  });
}

/**
 * The page's own reason for the navigation to `url` that just committed in `tabId`'s main frame, if its page asked
 * for that address lately (read, not consumed: the events and a recording both ask about the same commit).
 */
export function requestReason(tabId: number, url: string): string | undefined {
  const frames = requested.get(tabId);
  if (!frames) return undefined;
  // Synchronous, so navigation events keep their order with the page's other events.
  const main = knownMainFrameId(tabId);
  const r = main === undefined ? undefined : frames.get(main);
  return r && r.url === url && Date.now() - r.at < FRESH_MS ? r.reason : undefined;
}

/** A "link" transition the page's script asked for is a script navigation. */
export function transitionOf(transitionType: string, reason: string | undefined): string {
  return transitionType === "link" && (reason === "scriptInitiated" || reason === "metaTagRefresh" || reason === "httpHeaderRefresh")
    ? "script"
    : transitionType;
}

/** How many frames of the tab have a remembered request (a test's view of the bound). */
export function requestedFrames(tabId: number): number {
  return requested.get(tabId)?.size ?? 0;
}
