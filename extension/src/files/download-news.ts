/**
 * Downloads bsk keeps for a session (tab-downloads.ts), told as they start to whoever watches the tab: an action's
 * effect (effects.ts) names the download its input caused, with the id `bsk downloads save` takes.
 */
export interface KeptDownload {
  id: string;
  url: string;
  name: string;
}

type Listener = (d: KeptDownload) => void;

const listeners = new Map<number, Set<Listener>>();

export function onKeptDownload(tabId: number, fn: Listener): () => void {
  let set = listeners.get(tabId);
  if (!set) listeners.set(tabId, (set = new Set()));
  set.add(fn);
  return () => {
    set.delete(fn);
    if (set.size === 0 && listeners.get(tabId) === set) listeners.delete(tabId);
  };
}

export function announceKept(tabId: number, d: KeptDownload): void {
  for (const fn of listeners.get(tabId) ?? []) fn(d);
}
