/**
 * approval-text.html?approval=<id>: what the approval panel says, in a frame of the overlay's panel. An extension
 * page's frame is cross-origin to the page around it: the page's `find()` and other extensions' content scripts never
 * read the call it names (a URL with its token) or why it asks. The worker sends the text over the port; Deny and
 * Allow stay in the panel.
 */
import { browser } from "wxt/browser";
import { t } from "../../src/shared/i18n.ts";
import { APPROVAL_TEXT_PORT, type ApprovalTextToPage } from "../../src/shared/messages/approval-text.ts";

const what = document.getElementById("what")!;
const why = document.getElementById("why")!;
const port = browser.runtime.connect({ name: APPROVAL_TEXT_PORT });
port.onMessage.addListener((msg: ApprovalTextToPage) => {
  what.textContent = msg.text;
  why.textContent = msg.cause === "confirm_writes" ? t("approval.session") : t("approval.site", { origin: msg.origin ?? "" });
});
