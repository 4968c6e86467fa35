/**
 * The approval panel's text ↔ service worker port (`runtime.connect({name: APPROVAL_TEXT_PORT})`). What the panel
 * says (the call about to happen, with the URL it names, and why it asks) is an extension page
 * (`approval-text.html?approval=<id>`) in a frame of the overlay's panel, so none of it is in the page's document: the
 * page's `find()` and other extensions' content scripts cannot read it. The worker sends it once; the page sends nothing.
 */
export const APPROVAL_TEXT_PORT = "bsk-approval-text";
export const APPROVAL_TEXT_PAGE = "/approval-text.html";

export interface ApprovalTextToPage {
  /** "click button 'Pay now'", "navigate to https://…". */
  text: string;
  cause: "ask_first_site" | "confirm_writes";
  origin?: string;
}
