/**
 * The one chrome.downloads.onDeterminingFilename listener of the worker: an extension may answer each item once
 * (suggest), so the download call's claim (download-claim.ts) and the session keeper (tab-downloads.ts) are handlers
 * of this listener, never listeners of their own. The newest handler is asked first; an item no handler takes goes
 * its usual way at once, so the person's own downloads are not held up.
 */
import { browser, type Browser } from "wxt/browser";

export type DownloadItem = Browser.downloads.DownloadItem;
export type Suggest = (s?: Browser.downloads.FilenameSuggestion) => void;
/** Returns true when it took the item (it then calls suggest exactly once, now or later). */
export type FilenameHandler = (item: DownloadItem, suggest: Suggest) => boolean;

const handlers: FilenameHandler[] = [];

export function installFilenameRouter(): void {
  browser.downloads.onDeterminingFilename.addListener((item, suggest) => {
    for (const h of [...handlers].reverse()) if (h(item, suggest)) return true;
    suggest();
    return undefined;
  });
}

export function routeFilenames(h: FilenameHandler): () => void {
  handlers.push(h);
  return () => {
    const i = handlers.indexOf(h);
    if (i !== -1) handlers.splice(i, 1);
  };
}
