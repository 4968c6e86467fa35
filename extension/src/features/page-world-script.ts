/**
 * bsk's page-world script (entrypoints/page-world/: the drop registry and the work registry) runs in pages' own
 * world, where a page can tell it is there (a stack trace through its wrappers names the extension) and where it
 * wraps the page's addEventListener, timers and animation frames. So it goes only into the tabs bsk debugs — a
 * session's own tabs and those lent to it — through their attachment (Page.addScriptToEvaluateOnNewDocument): every
 * new document of the tab and of its out-of-process iframes (attached paused) gets it before the page's own scripts.
 * The document showing when a tab is attached (a lent tab's) gets it with its next one; until then its snapshot shows
 * only the drop attributes the snapshot reads itself, and each action's effect waits for the frame after its input.
 * (Running it at once, `runImmediately`, in a lent tab once hung the whole browser after a worker restart in e2e;
 * not reproduced since, features/README.md.) The
 * person's other tabs never have it, session or not. A tab given back is detached, which ends the registration; its
 * current document keeps the wrappers until it is left.
 *
 * A document gets the script once however often it is offered (entrypoints/page-world/index.ts checks): a worker
 * restart keeps the attachment and its registration (then nothing is added) and re-reports out-of-process iframes as
 * new sessions.
 */
import { onAttach } from "../cdp/debugger.ts";
import { onChildAttach } from "../cdp/frames.ts";
import { scriptText } from "../shared/script-text.ts";

async function addPageWorld(send: (method: string, params?: object) => Promise<unknown>): Promise<void> {
  await send("Page.addScriptToEvaluateOnNewDocument", { source: await scriptText("page-world.js"), runImmediately: false });
}

export function installPageWorldScript(): void {
  onAttach(async (_tabId, send, readopted) => {
    if (!readopted) await addPageWorld(send);
  });
  onChildAttach((send) => addPageWorld(send));
}
