/**
 * CDP events of a tab from every session of it, out-of-process iframes included (a file chooser or a download can
 * start in any frame). One tap is registered on first use; listeners come and go per call.
 */
import { tapCdp } from "../../cdp/debugger.ts";
import { KeyedListeners } from "../../shared/keyed-listeners.ts";
import type { CdpTarget } from "../../cdp/refs/target.ts";

type Listener = (source: CdpTarget, params: Record<string, any>) => void;

const listeners = new KeyedListeners<string, Parameters<Listener>>();
let tapped = false;

const key = (tabId: number, method: string) => `${tabId}|${method}`;

/** Listen to `method` on every session of the tab until the returned function is called. */
export function onTabEvent(tabId: number, method: string, listener: Listener): () => void {
  if (!tapped) {
    tapped = true;
    tapCdp({
      onEvent(source, m, p) {
        listeners.emit(key(source.tabId, m), source, p);
      },
    });
  }
  return listeners.add(key(tabId, method), listener);
}
