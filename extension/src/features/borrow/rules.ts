/**
 * Which tabs may be borrowed, as a pure function (no chrome.* here, so bun test can import it). Checked before
 * the person is asked and again right before the tab moves (the browser may have changed meanwhile).
 */
import { BskError } from "../../../../protocol/errors.ts";
import { isRestrictedUrl, restrictedUrlError } from "../../session/scope.ts";

/** What the rule needs to know about the tab and the sessions around it. */
export interface BorrowCandidate {
  tab_id: number;
  url: string;
  incognito: boolean;
  /** The type of the tab's window ("normal", "popup", "app", "devtools"). */
  window_type: string;
  /** The session that owns the tab, if any. */
  owner_session_id?: string;
  /** The session whose Agent Window holds the tab, if any. */
  window_session_id?: string;
  /** Another session is already asking for this tab (its consent prompt may be up). */
  pending_for?: string;
  /** Open tabs, not the caller's, whose pages can reach this tab's (link-graph.ts). */
  linked_tab_ids?: number[];
}

/** The refusal for `caller` borrowing this tab, or null when it may ask the person. */
export function borrowRefusal(caller: string, tab: BorrowCandidate): BskError | null {
  const id = tab.tab_id;
  if (tab.owner_session_id === caller) {
    return new BskError("invalid_params", `tab ${id} is already this session's`, { data: { reason: "already_owned", tab_id: id } });
  }
  // Another session's tab, one in another session's Agent Window, or one another borrow is asking for: the
  // error never names that session.
  const other = [tab.owner_session_id, tab.window_session_id, tab.pending_for].some((s) => s !== undefined && s !== caller);
  if (other || tab.pending_for === caller) {
    return new BskError("permission_denied", `tab ${id} is held or being borrowed by a session`, {
      data: { reason: "borrow_conflict", tab_id: id },
    });
  }
  if (tab.incognito) {
    return new BskError("permission_denied", `tab ${id} is in an incognito window`, { data: { reason: "incognito", tab_id: id } });
  }
  if (isRestrictedUrl(tab.url)) return restrictedUrlError(tab.url, id);
  if (tab.linked_tab_ids?.length) {
    const n = tab.linked_tab_ids.length;
    return new BskError(
      "permission_denied",
      `tab ${id} is linked to ${n} other tab${n === 1 ? "" : "s"} of the person's (one opened the other): their pages can reach each other`,
      {
        data: { reason: "linked_tabs", tab_id: id, linked_tabs: n },
      },
    );
  }
  if (tab.window_type !== "normal") {
    return new BskError("unsupported", `tab ${id} is in a ${tab.window_type} window; only tabs of normal windows can move`, {
      data: { reason: "not_a_normal_window", tab_id: id },
    });
  }
  return null;
}
