/**
 * dialog.status / dialog.accept / dialog.dismiss: answer the JavaScript dialog the tab is stuck on. A browser prompt
 * (guard/prompt-state.ts) is shown too; bsk cannot press the browser's own buttons, so dismissing one reloads the
 * page, which closes the browser's prompts for it. Accepting one is the person's alone.
 */
import { BskError } from "../../../protocol/errors.ts";
import type { dialogMethods } from "../../../protocol/methods/dialogs.ts";
import { sendAsIs, sendTo } from "../cdp/debugger.ts";
import { answered, dialogInfo, dialogSettled, openDialog, type OpenDialog } from "../page/dialogs.ts";
import { resolveTab } from "../session/sessions.ts";
import type { FamilyHandlers } from "../shared/handler.ts";
import { sending } from "../session/input-mark.ts";
import { clearPrompt, promptOf, type PendingPrompt } from "../page/prompt-state.ts";

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
    // Not behind the tab's attaching: after a worker restart that waits for this very answer (page/dialogs.ts).
    await sending({ tabId }, () =>
      sendAsIs(d.target, "Page.handleJavaScriptDialog", { accept, ...(text !== undefined && { promptText: text }) }, signal),
    );
  } catch (err) {
    // Answered meanwhile (by the person, or the page went away): the dialog is gone either way.
    if (!(err instanceof BskError && /no dialog is showing/i.test(String(err.data?.cdp_message ?? "")))) throw err;
  }
  answered(tabId, d);
}

function promptInfo(p: PendingPrompt): { kind: PendingPrompt["kind"]; url: string; detail: Record<string, string> } {
  return { kind: p.kind, url: p.url, detail: p.detail };
}

export const dialogHandlers: FamilyHandlers<typeof dialogMethods> = {
  "dialog.status": async (p) => {
    const { tabId } = await resolveTab(p);
    await dialogSettled(tabId);
    const d = openDialog(tabId);
    const prompt = promptOf(tabId);
    return { tab_id: tabId, open: d !== undefined, dialog: d ? dialogInfo(d) : null, prompt: prompt ? promptInfo(prompt) : null };
  },

  "dialog.accept": async (p, { signal }) => {
    const { tabId } = await resolveTab(p);
    await dialogSettled(tabId);
    const prompt = openDialog(tabId) ? undefined : promptOf(tabId);
    if (prompt) {
      throw new BskError("prompt_pending", `the browser asks the person in tab ${tabId} (${prompt.kind}); bsk never answers yes for them`, {
        hint: "Ask the person: bsk request-help --prompt '…'; or bsk dialog dismiss (reloads the page without it).",
        data: { tab_id: tabId, prompt: promptInfo(prompt) },
      });
    }
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
    await dialogSettled(tabId);
    const prompt = openDialog(tabId) ? undefined : promptOf(tabId);
    if (prompt) {
      await sending({ tabId }, () => sendTo({ tabId }, "Page.reload", {}, signal));
      clearPrompt(tabId);
      return { tab_id: tabId, dialog: null, prompt: promptInfo(prompt), accepted: false as const };
    }
    const d = requireDialog(tabId);
    await answer(tabId, d, false, undefined, signal);
    return { tab_id: tabId, dialog: dialogInfo(d), prompt: null, accepted: false as const };
  },
};
