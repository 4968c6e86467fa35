/**
 * Downloads bsk keeps for a session (tab-downloads.ts), told as they start to whoever watches the tab: an action's
 * effect (effects.ts) names the download its input caused, with the id `bsk downloads save` takes.
 */
import { KeyedListeners } from "../shared/keyed-listeners.ts";

export interface KeptDownload {
  id: string;
  url: string;
  name: string;
}

const watchers = new KeyedListeners<number, [KeptDownload]>();

export function onKeptDownload(tabId: number, fn: (d: KeptDownload) => void): () => void {
  return watchers.add(tabId, fn);
}

export function announceKept(tabId: number, d: KeptDownload): void {
  watchers.emit(tabId, d);
}
