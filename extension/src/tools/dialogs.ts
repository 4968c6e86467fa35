/** dialog.status / dialog.accept / dialog.dismiss: answer the JavaScript dialog the tab is stuck on. */
import { BskError } from "../../../protocol/errors.ts";
import type { dialogMethods } from "../../../protocol/methods/dialogs.ts";
import { sendTo } from "../cdp.ts";
import { answered, dialogInfo, openDialog, type OpenDialog } from "../dialogs.ts";
import { resolveTab } from "../sessions.ts";
import type { FamilyHandlers } from "./handler.ts";
import { sending } from "../input-mark.ts";

function requireDialog(tabId: number): OpenDialog {
  const d = openDialog(tabId);
  if (!d) {
    throw new BskError("not_found", `no dialog is open in tab ${tabId}`, {
      hint: "Nothing to answer; check with bsk dialog status, or carry on.",
      data: { reason: "no_dialog", tab_id: tabId },
    });
  }
  return d;
}

async function answer(tabId: number, d: OpenDialog, accept: boolean, text: string | undefined, signal: AbortSignal): Promise<void> {
  try {
    await sending({ tabId }, () => sendTo(d.target, "Page.handleJavaScriptDialog", { accept, ...(text !== undefined && { promptText: text }) }, signal));
  } catch (err) {
    // Answered meanwhile (by the person, or the page went away): the dialog is gone either way.
    if (!(err instanceof BskError && /no dialog is showing/i.test(String(err.data?.cdp_message ?? "")))) throw err;
  }
  answered(tabId, d);
}

export const dialogHandlers: FamilyHandlers<typeof dialogMethods> = {
  "dialog.status": async (p) => {
    const { tabId } = await resolveTab(p);
    const d = openDialog(tabId);
    return { tab_id: tabId, open: d !== undefined, dialog: d ? dialogInfo(d) : null };
  },

  "dialog.accept": async (p, { signal }) => {
    const { tabId } = await resolveTab(p);
    const d = requireDialog(tabId);
    if (p.text !== undefined && d.type !== "prompt") {
      throw new BskError("invalid_params", `--text answers a prompt(); this dialog is a ${d.type}`, {
        hint: "Accept it without --text: bsk dialog accept.",
      });
    }
    await answer(tabId, d, true, p.text, signal);
    return { tab_id: tabId, dialog: dialogInfo(d), accepted: true as const };
  },

  "dialog.dismiss": async (p, { signal }) => {
    const { tabId } = await resolveTab(p);
    const d = requireDialog(tabId);
    await answer(tabId, d, false, undefined, signal);
    return { tab_id: tabId, dialog: dialogInfo(d), accepted: false as const };
  },
};
