/** A session tab's own navigation to a file: URL the session may not open sends the tab back to about:blank. */
import { browser } from "wxt/browser";
import { fileRefusal, isFileUrl } from "../../session/file-urls.ts";
import { ownerOfTab, sessionsReady } from "../../session/sessions.ts";

/**
 * A page's own navigation of a session tab (a link, location, window.open) to a file: URL it may not open. A frame's
 * too: a file: page may frame another file, and what a frame shows is read with its tab, so the whole tab goes back.
 */
export function installFileUrlGuard(): void {
  browser.webNavigation.onBeforeNavigate.addListener((d) => {
    if (!isFileUrl(d.url)) return;
    void sessionsReady().then(async () => {
      const owner = ownerOfTab(d.tabId);
      if (!owner || !(await fileRefusal(owner.session, d.url))) return;
      console.warn(`bsk: tab ${d.tabId} of session ${owner.session.session_id} may not open ${d.url}`);
      await browser.tabs.update(d.tabId, { url: "about:blank" }).catch(() => undefined);
    });
  });
}
