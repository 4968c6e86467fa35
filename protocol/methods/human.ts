import { z } from "zod";
import { method, Target, tabParams } from "../define.ts";

const validRegex = (s: string) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
};

/**
 * When a help request is done without the person clicking Done: every condition given must hold, and keep holding
 * for `stable_ms`. Checked in the page on every DOM change and navigation (reloads and SPA route changes included).
 */
export const HelpCriteria = () =>
  z
    .strictObject({
      url_contains: z.string().min(1).max(2048).optional().describe("The tab's URL contains this text"),
      url_matches: z
        .string()
        .min(1)
        .max(512)
        .refine(validRegex, "not a valid regular expression")
        .optional()
        .describe("The tab's URL matches this regular expression"),
      element_exists: z.string().min(1).max(1024).optional().describe("A CSS selector that must match an element (main document)"),
      element_missing: z.string().min(1).max(1024).optional().describe("A CSS selector that must match nothing (main document)"),
      text_present: z.string().min(1).max(1024).optional().describe("Text that must be on the page"),
      text_absent: z.string().min(1).max(1024).optional().describe("Text that must not be on the page"),
      stable_ms: z.number().int().min(0).max(60_000).default(500).describe("How long the conditions must hold"),
    })
    .refine(
      (c) =>
        [c.url_contains, c.url_matches, c.element_exists, c.element_missing, c.text_present, c.text_absent].some((v) => v !== undefined),
      { message: "give at least one condition (url_contains, url_matches, element_exists, element_missing, text_present, text_absent)" },
    );

export const HELP_OUTCOMES = ["completed", "continued", "cancelled", "timed_out", "disabled"] as const;

/** Asking the person to do what the agent cannot (log in, a captcha, 2FA, a payment step). */
export const humanMethods = {
  request_help: method({
    owner: "extension",
    effect: "PassiveRead",
    runsUnderDialog: true,
    scope: "tab",
    description:
      "Ask the person for help in the tab (log in, solve a captcha, confirm a payment): fronts it, highlights the targets, " +
      "shows the prompt with Done and Cancel, and waits: completed (--until held), continued (Done), cancelled, timed_out, or " +
      "disabled (help requests off). Reloads do not end it.",
    params: () =>
      z.object({
        ...tabParams(),
        prompt: z.string().min(1).max(2000).describe("What the person should do, in one or two sentences"),
        title: z.string().min(1).max(120).optional().describe("Panel title"),
        targets: z.array(Target()).max(8).default([]).describe("Elements to highlight (@eN refs or selectors)"),
        timeout_ms: z.number().int().min(100).max(3_600_000).default(300_000).describe("How long to wait for the person"),
        until: HelpCriteria().optional().describe("Completion criteria: done when all of them hold for stable_ms"),
      }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        outcome: z.enum(HELP_OUTCOMES),
        /** What the person typed in the panel's note field ("" when nothing). */
        note: z.string(),
        url: z.string(),
        title: z.string(),
        waited_ms: z.number(),
        targets: z.array(
          z.object({
            target: z.string(),
            found: z.boolean(),
            role: z.string().optional(),
            name: z.string().optional(),
            /** Why it was not found (stale_ref, not_found, ...). */
            error: z.string().optional(),
          }),
        ),
      }),
    waitParam: "timeout_ms",
    cli: {
      words: ["request-help"],
      flags: {
        prompt: { description: "What the person should do (required)" },
        title: {},
        target: { param: "targets", description: "Element to highlight (@eN or selector); repeatable" },
        timeout: {
          param: "timeout_ms",
          type: "duration",
          description: "How long to wait for the person; the call waits that long too",
        },
        until: {
          type: "json",
          description:
            'Completion criteria (all must hold): {"url_contains","url_matches","element_exists","element_missing","text_present","text_absent","stable_ms"}',
        },
      },
      examples: [
        "bsk request-help --prompt 'Please sign in, then click Done' --session $S",
        `bsk request-help --prompt 'Solve the captcha' --target @e12 --until '{"element_missing":"iframe[title*=captcha]"}' --timeout 10m --session $S`,
        `bsk request-help --title 'Sign in' --prompt 'Log in to continue' --until '{"url_contains":"/account","text_present":"Logged in"}'`,
      ],
    },
  }),
};
