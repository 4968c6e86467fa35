import { z } from "zod";
import { method, tabParams, WaitUntil } from "../define.ts";

export const NavigationResult = () =>
  z.object({
    tab_id: z.number().int(),
    url: z.string(),
    title: z.string(),
    status: z.number().int().nullable().describe("HTTP status of the main document, when known"),
    navigated: z.boolean(),
  });

export const waitUntilFlag = {
  "wait-until": { description: "Milestone to wait for" },
} as const;

/** Navigation: loading URLs, history, reload. */
export const navigationMethods = {
  navigate: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Load a URL in the tab and wait for the chosen milestone.",
    params: () =>
      z.object({
        ...tabParams(),
        url: z.string().min(1).describe("Absolute URL (http, https, file, about:blank)"),
        wait_until: WaitUntil().default("load"),
      }),
    result: NavigationResult,
    cli: {
      words: ["navigate"],
      positionals: [{ param: "url", description: "URL to open", required: true }],
      flags: waitUntilFlag,
      examples: ["bsk navigate https://example.com --session $S", "bsk navigate http://localhost:3000 --wait-until networkidle"],
    },
  }),

  "navigate.back": method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Go back one entry in the tab's history.",
    params: () => z.object({ ...tabParams(), wait_until: WaitUntil().default("load") }),
    result: NavigationResult,
    cli: { words: ["navigate", "back"], flags: waitUntilFlag },
  }),

  "navigate.forward": method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Go forward one entry in the tab's history.",
    params: () => z.object({ ...tabParams(), wait_until: WaitUntil().default("load") }),
    result: NavigationResult,
    cli: { words: ["navigate", "forward"], flags: waitUntilFlag },
  }),

  reload: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Reload the tab (--hard bypasses the cache).",
    params: () =>
      z.object({ ...tabParams(), hard: z.boolean().default(false).describe("Bypass the cache"), wait_until: WaitUntil().default("load") }),
    result: NavigationResult,
    cli: {
      words: ["reload"],
      flags: { hard: { description: "Bypass the cache" }, ...waitUntilFlag },
    },
  }),
};
