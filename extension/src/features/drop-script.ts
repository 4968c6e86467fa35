/**
 * The drop registry (entrypoints/drops.ts) runs in pages' own world, where a page can tell it is there (a stack
 * trace through its wrappers names the extension) and where it wraps the page's addEventListener. So it is
 * registered only while a session is live, not in the person's browsing otherwise. session.open awaits it before it
 * answers, so the agent's first navigation in a new session already has it; a page loaded before (a borrowed tab's)
 * gets it with its next document, and until then shows only the drop attributes the snapshot reads itself.
 */
import { browser } from "wxt/browser";
import { SESSION } from "../session/settings.ts";
import { allSessions, sessionsReady } from "../session/sessions.ts";

const SCRIPT_ID = "bsk-drops";
let chain: Promise<void> = Promise.resolve();

async function apply(live: boolean): Promise<void> {
  const registered = (await browser.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] })).length > 0;
  if (live && !registered) {
    await browser.scripting.registerContentScripts([
      {
        id: SCRIPT_ID,
        matches: ["<all_urls>"],
        js: ["drops.js"],
        runAt: "document_start",
        allFrames: true,
        matchOriginAsFallback: true,
        world: "MAIN",
        persistAcrossSessions: false,
      },
    ]);
  } else if (!live && registered) {
    await browser.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] });
  }
}

/** Registers the registry while any session is live and removes it when none is; calls run one after another. */
export function syncDropScript(): Promise<void> {
  chain = chain
    .then(() => apply(allSessions().length > 0))
    .catch((err: unknown) => console.warn("bsk: could not (un)register the drop registry", err));
  return chain;
}

export function installDropScript(): void {
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "session" && SESSION.sessions in changes) void syncDropScript();
  });
  void sessionsReady().then(syncDropScript);
}
