/**
 * The keep-alive content script, in every top-level page (registered by the worker, src/link/keepalive.ts). In a tab
 * of a live session it pings the service worker every 2 s: a stopped worker is woken by the message (and
 * reconnects to the daemon at start-up), a running one is kept from idling out. Elsewhere it sends nothing, and it
 * does not even ask unless some session is live. It never touches the page.
 *
 * An unlisted script rather than a WXT content script, like the overlay: WXT's content-script context announces
 * itself to the page with a DOM event that the page could imitate.
 */
import { browser } from "wxt/browser";
import { defineUnlistedScript } from "wxt/utils/define-unlisted-script";
import { KEEPALIVE, LIVE_ANY_KEY } from "../src/shared/messages/keepalive.ts";

const PING_MS = 2_000;

export default defineUnlistedScript(() => {
  const g = globalThis as { __bskKeepalive?: boolean };
  if (window.top !== window || g.__bskKeepalive) return;
  g.__bskKeepalive = true;

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

  browser.runtime.onMessage.addListener((msg: { type?: string }, sender) => {
    if (sender.id === browser.runtime.id && !sender.tab && msg?.type === KEEPALIVE.start) start();
    return false;
  });
  void browser.storage.local.get(LIVE_ANY_KEY).then((got) => {
    if (got[LIVE_ANY_KEY] === true) start();
  });
});
