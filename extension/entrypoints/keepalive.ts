/**
 * The keep-alive content script, registered by the worker (src/link/keepalive.ts) only while some session is live, in
 * every frame. It marks the frame's content-script world live (LIVE_GLOBAL), which the overlay and hands scripts read.
 * In the top frame it asks once whether its tab belongs to a live session and, in one, pings the service worker every
 * 2 s: a stopped worker is woken by the message (and reconnects to the daemon at start-up), a running one is kept
 * from idling out. Elsewhere it sends nothing more. It never touches the page.
 *
 * An unlisted script rather than a WXT content script, like the overlay: WXT's content-script context announces
 * itself to the page with a DOM event that the page could imitate.
 */
import { browser } from "wxt/browser";
import { defineUnlistedScript } from "wxt/utils/define-unlisted-script";
import { KEEPALIVE, LIVE_GLOBAL } from "../src/shared/messages/keepalive.ts";

const PING_MS = 2_000;

export default defineUnlistedScript(() => {
  const g = globalThis as { __bskKeepalive?: boolean } & Record<string, unknown>;
  if (g.__bskKeepalive) return;
  g.__bskKeepalive = true;
  g[LIVE_GLOBAL] = true;
  if (window.top !== window) return;

  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const ping = async () => {
    try {
      const reply = (await browser.runtime.sendMessage({ type: KEEPALIVE.ping })) as { live?: boolean } | undefined;
      if (reply?.live === false) stop();
    } catch {
      // The worker is starting (the next ping reaches it), or the extension was reloaded: then stop for good.
      if (!browser.runtime?.id) stop();
    }
  };
  const start = () => {
    if (timer) return;
    timer = setInterval(() => void ping(), PING_MS);
    void ping();
  };

  browser.runtime.onMessage.addListener((msg: { type?: string }, sender, sendResponse) => {
    if (sender.id !== browser.runtime.id || sender.tab) return false;
    if (msg?.type === KEEPALIVE.start) {
      start();
      // The worker injects this script where nothing answers (link/keepalive.ts).
      sendResponse(true);
    } else if (msg?.type === KEEPALIVE.stop) stop();
    return false;
  });
  start();
});
