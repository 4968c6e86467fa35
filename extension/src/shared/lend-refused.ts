/**
 * What the person is told when a tab they dragged into a session's group is not lent (features/borrow/drag.ts): the
 * popup's line under the session (storage.session `lend_refused`) and a system notification say the same words.
 */
import { t, type MessageKey } from "./i18n.ts";

export interface LendRefusedNotice {
  tab_id: number;
  /** The tab's title (or address) when it was refused. */
  title: string;
  /** The event's reason: no_borrow or a borrow rule's (linked_tabs, restricted_url, …). */
  reason: string;
  /** Whether it went back out of the group (false: the person has to drag it out). */
  put_back: boolean;
}

const TITLE_MAX = 60;
const REASONS = ["linked_tabs", "restricted_url", "no_borrow", "borrow_conflict", "incognito"] as const;

export function lendRefusedText(n: LendRefusedNotice): string {
  const title = n.title.length > TITLE_MAX ? `${n.title.slice(0, TITLE_MAX - 1)}…` : n.title;
  const known = (REASONS as readonly string[]).includes(n.reason) ? n.reason : "other";
  const why = t(`lend_refused.why.${known}` as MessageKey);
  return `${t("lend_refused.line", { title, why })} ${t(n.put_back ? "lend_refused.back" : "lend_refused.not_back")}`;
}
