/**
 * Tells the person that a tab they dragged into a session's group was not lent, and why (drag.ts): a line under the
 * session in the popup (storage.session `lend_refused`, the last one per live session) and a system notification,
 * since the person is looking at the tab strip, not at the session's page. Best effort: the refusal stands either way.
 */
import { browser, type Browser } from "wxt/browser";
import { allSessions } from "../../session/sessions.ts";
import { SESSION, type SessionState } from "../../session/settings.ts";
import { t } from "../../shared/i18n.ts";
import { lendRefusedText, type LendRefusedNotice } from "../../shared/lend-refused.ts";

const NOTIFICATION_PREFIX = "bsk-lend-refused-";

export async function tellRefused(p: { session: SessionState; tab: Browser.tabs.Tab; reason: string; put_back: boolean }): Promise<void> {
  const notice: LendRefusedNotice = {
    tab_id: p.tab.id!,
    title: p.tab.title || p.tab.url || p.tab.pendingUrl || "",
    reason: p.reason,
    put_back: p.put_back,
  };
  const live = new Set(allSessions().map((s) => s.session_id));
  const got = await browser.storage.session.get(SESSION.lendRefused).catch(() => ({}) as Record<string, unknown>);
  const kept = Object.entries((got[SESSION.lendRefused] ?? {}) as Record<string, LendRefusedNotice>).filter(([id]) => live.has(id));
  await browser.storage.session
    .set({ [SESSION.lendRefused]: Object.fromEntries([...kept, [p.session.session_id, notice]]) })
    .catch(() => undefined);
  await browser.notifications
    .create(`${NOTIFICATION_PREFIX}${p.session.session_id}`, {
      type: "basic",
      iconUrl: browser.runtime.getURL("/icon-128.png"),
      title: t("lend_refused.notice_title"),
      message: lendRefusedText(notice),
      priority: 1,
    })
    .catch(() => undefined);
}
