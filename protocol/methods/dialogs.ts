import { z } from "zod";
import { method, PromptInfo, tabParams } from "../define.ts";

const DialogInfo = () =>
  z.object({
    type: z.enum(["alert", "confirm", "prompt", "beforeunload"]),
    message: z.string(),
    default_prompt: z.string().optional(),
    url: z.string(),
  });

/**
 * JavaScript dialogs: while one is open, page actions fail with dialog_pending until it is answered. Browser prompts
 * (a permission, printing, another app) are the person's to answer: while one is up, input calls fail with
 * prompt_pending; dismiss reloads the page without it.
 */
export const dialogMethods = {
  "dialog.status": method({
    owner: "extension",
    effect: "PassiveRead",
    runsUnderDialog: true,
    scope: "tab",
    description:
      "Whether a JavaScript dialog is open in the tab, with its type and message, and any browser prompt waiting for the person.",
    params: () => z.object({ ...tabParams() }),
    result: () =>
      z.object({ tab_id: z.number().int(), open: z.boolean(), dialog: DialogInfo().nullable(), prompt: PromptInfo().nullable() }),
    cli: { words: ["dialog", "status"] },
  }),

  "dialog.accept": method({
    owner: "extension",
    effect: "BrowserMutation",
    runsUnderDialog: true,
    scope: "tab",
    description: "Accept the open dialog (OK); --text answers a prompt().",
    params: () => z.object({ ...tabParams(), text: z.string().optional().describe("Answer for a prompt()") }),
    result: () => z.object({ tab_id: z.number().int(), dialog: DialogInfo(), accepted: z.literal(true) }),
    cli: {
      words: ["dialog", "accept"],
      flags: { text: {} },
    },
  }),

  "dialog.dismiss": method({
    owner: "extension",
    effect: "BrowserMutation",
    runsUnderDialog: true,
    scope: "tab",
    description: "Dismiss the open dialog (Cancel); a browser prompt waiting for the person is dismissed by reloading the page.",
    params: () => z.object({ ...tabParams() }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        dialog: DialogInfo().nullable(),
        /** The browser prompt dismissed (the page was reloaded: its unsaved state is gone). */
        prompt: PromptInfo().nullable(),
        accepted: z.literal(false),
      }),
    cli: { words: ["dialog", "dismiss"] },
  }),
};
