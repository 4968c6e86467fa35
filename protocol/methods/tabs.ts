import { z } from "zod";
import { method, sessionParam, TabInfo } from "../define.ts";

/** Tabs: listing, creating, selecting and closing the session's tabs; borrowing the person's and giving them back. */
export const tabMethods = {
  "tab.list": method({
    owner: "extension",
    effect: "PassiveRead",
    scope: "session",
    description: "List tabs: the session's own (default), the person's, or all, with id, title, URL, window and owner.",
    params: () =>
      z.object({
        ...sessionParam(),
        scope: z.enum(["owned", "user", "all"]).default("owned").describe("Which tabs to list (an isolated session lists only its own)"),
      }),
    result: () =>
      z.object({
        current_tab_id: z.number().int().nullable(),
        tabs: z.array(TabInfo()),
        /** The session is isolated (an incognito window without the person's logins). */
        isolated: z.boolean().optional(),
      }),
    cli: {
      words: ["tab", "list"],
      flags: { scope: {} },
    },
  }),

  "tab.create": method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "session",
    description: "Open a new tab in the Agent Window; it becomes the session's current tab.",
    params: () =>
      z.object({
        ...sessionParam(),
        url: z.string().default("about:blank").describe("URL to open"),
        background: z.boolean().default(false).describe("Do not activate the tab in its window"),
      }),
    result: () => TabInfo(),
    cli: {
      words: ["tab", "create"],
      positionals: [{ param: "url", description: "URL to open (default about:blank)" }],
      flags: {
        url: {},
        background: {},
      },
    },
  }),

  "tab.select": method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "session",
    description: "Make a tab the session's current tab and activate it.",
    params: () => z.object({ ...sessionParam(), tab_id: z.number().int().describe("Tab id") }),
    result: () => TabInfo(),
    cli: {
      words: ["tab", "select"],
      positionals: [{ param: "tab_id", description: "Tab id", required: true, type: "number" }],
      flags: { tab: { param: "tab_id" } },
    },
  }),

  "tab.close": method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "session",
    description: "Close one of the session's tabs (default: the current one); borrowed tabs are refused.",
    params: () => z.object({ ...sessionParam(), tab_id: z.number().int().optional().describe("Tab id") }),
    result: () => z.object({ closed_tab_id: z.number().int(), current_tab_id: z.number().int().nullable() }),
    cli: {
      words: ["tab", "close"],
      positionals: [{ param: "tab_id", description: "Tab id (default: current tab)", type: "number" }],
      flags: { tab: { param: "tab_id" } },
    },
  }),

  "tab.borrow": method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "session",
    description:
      "Borrow one of the person's tabs: they are asked in a consent window (unless they turned that off in the popup); " +
      "allowed, the tab moves intact into the Agent Window and becomes the session's current tab. Deny, timeout or a cancelled call: it never moves. " +
      "A tab linked to another of the person's (one opened the other, so their pages can reach each other) is refused (reason linked_tabs).",
    params: () =>
      z.object({
        ...sessionParam(),
        tab_id: z.number().int().describe("The person's tab (bsk tab list --scope user)"),
        timeout_ms: z
          .number()
          .int()
          .min(1000)
          .max(600_000)
          .default(60_000)
          .describe("How long the person has to answer; no answer is a refusal"),
      }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        window_id: z.number().int(),
        index: z.number().int(),
        /** Where it came from; tab.return puts it back there. */
        from: BorrowOrigin(),
        /** Whether the person was asked (false: they turned confirmation off). */
        asked: z.boolean(),
        current_tab_id: z.number().int().nullable(),
      }),
    waitParam: "timeout_ms",
    cli: {
      words: ["tab", "borrow"],
      positionals: [{ param: "tab_id", description: "The person's tab id (bsk tab list --scope user)", required: true, type: "number" }],
      flags: {
        tab: { param: "tab_id", description: "Tab id" },
        timeout: {
          param: "timeout_ms",
          type: "duration",
          description: "How long the person has to answer (1s–10m); the call waits that long too",
        },
      },
      examples: ["bsk tab list --scope user --session $S", "bsk tab borrow 1234 --session $S", "bsk tab return 1234 --session $S"],
    },
  }),

  "tab.return": method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "session",
    description:
      "Give a borrowed tab back: to its window and index with its pinned, group and muted state; if that window is gone, " +
      "to another normal window of the person's (fallback: true). Tabs its page opened while lent are closed first (they could reach it).",
    params: () => z.object({ ...sessionParam(), tab_id: z.number().int().describe("A tab this session borrowed") }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        window_id: z.number().int(),
        index: z.number().int(),
        /** The original window was gone (or is an Agent Window): it went to another of the person's windows. */
        fallback: z.boolean(),
        /** The session's tabs the lent page had opened (they could reach it), closed before it went back. */
        closed_tab_ids: z.array(z.number().int()),
        current_tab_id: z.number().int().nullable(),
      }),
    cli: {
      words: ["tab", "return"],
      positionals: [{ param: "tab_id", description: "A borrowed tab's id", required: true, type: "number" }],
      flags: { tab: { param: "tab_id", description: "Tab id" } },
    },
  }),
};

/** Where a borrowed tab was, so it can go back there. */
export const BorrowOrigin = () =>
  z.object({
    window_id: z.number().int(),
    index: z.number().int(),
    pinned: z.boolean(),
    /** -1: not in a group. */
    group_id: z.number().int(),
    muted: z.boolean(),
  });
