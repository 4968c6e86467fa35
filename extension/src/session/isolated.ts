/**
 * Isolated sessions (`session start --isolated`): the session's window is an incognito window, so its pages see none
 * of the person's cookies, storage or logins, and the browser discards what they stored once the last incognito
 * window closes. Every incognito window of a profile shares one cookie jar, so an isolated session does not start
 * beside an incognito window of the person's (their logins there would be the session's).
 */
import { browser, type Browser } from "wxt/browser";
import { BskError } from "../../../protocol/errors.ts";
import { ownerOfTab, sessionByWindow } from "./sessions.ts";
import type { SessionState } from "./settings.ts";

export const INCOGNITO_SETTING_HINT =
  'Open chrome://extensions, click Details on bsk, switch on "Allow in Incognito", then start the session again.';

/** Opens the isolated session's incognito window on about:blank; refuses when bsk may not run there. */
export async function openIncognitoWindow(p: {
  focus: boolean;
  width?: number;
  height?: number;
}): Promise<Browser.windows.Window | undefined> {
  if (!(await browser.extension.isAllowedIncognitoAccess())) {
    throw new BskError("incognito_not_allowed", "bsk is not allowed in Incognito, so it cannot open an isolated session", {
      hint: INCOGNITO_SETTING_HINT,
    });
  }
  const theirs = (await browser.windows.getAll({ populate: true })).filter(isPersonsIncognito);
  if (theirs.length) {
    throw new BskError(
      "incognito_not_allowed",
      "an incognito window of the person's is open: an isolated session would share its cookies",
      {
        data: { reason: "incognito_in_use", windows: theirs.length },
      },
    );
  }
  return browser.windows.create({
    type: "normal",
    incognito: true,
    url: "about:blank",
    focused: p.focus,
    ...(p.width === undefined ? {} : { width: p.width }),
    ...(p.height === undefined ? {} : { height: p.height }),
  });
}

/** An incognito window that is no session's and holds a tab no session owns (a popup a session's page opened is the session's). */
function isPersonsIncognito(w: Browser.windows.Window): boolean {
  if (!w.incognito || w.id === undefined || sessionByWindow(w.id)) return false;
  return (w.tabs ?? []).some((t) => t.id === undefined || !ownerOfTab(t.id));
}

/** Borrowing into an isolated session is refused: a person's tab carries their logins, which the session promised not to use. */
export function assertMayBorrowInto(s: SessionState, tabId: number): void {
  if (!s.isolated) return;
  throw new BskError("permission_denied", `session ${s.session_id} is isolated: it never holds the person's tabs`, {
    data: { reason: "isolated_session", tab_id: tabId },
  });
}
