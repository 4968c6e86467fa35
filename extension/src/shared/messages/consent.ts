/**
 * The consent window ↔ service worker port (`runtime.connect({name: CONSENT_PORT})`). The port is the prompt's
 * lifeline: when it drops (window closed, worker restarted) the borrow is refused on one side and the window
 * closes itself on the other.
 */
export const CONSENT_PORT = "bsk-consent";
export const CONSENT_PAGE = "/consent.html";

/** What the prompt shows. */
export interface ConsentInfo {
  session_id: string;
  session_name?: string;
  tab_id: number;
  title: string;
  url: string;
  fav_icon_url?: string;
  /** Epoch ms when the prompt counts as unanswered. */
  deadline: number;
}

export type ToWorker = { type: "hello"; id: string } | { type: "answer"; id: string; allow: boolean };

export type ToPage = { type: "info"; info: ConsentInfo } | { type: "gone" };
