import { z } from "zod";
import { type Effect, method, sessionParam, TabInfo } from "../define.ts";

/** Tabs: listing, creating, selecting and closing the session's tabs. */
export const tabMethods = {
  "tab.list": method({
    owner: "extension",
    scope: "session",
    description: "List tabs: the session's own (default), the person's, or all, with id, title, URL, window and owner.",
    params: () =>
      z.object({
        ...sessionParam(),
        scope: z.enum(["owned", "user", "all"]).default("owned").describe("Which tabs to list"),
      }),
    result: () => z.object({ current_tab_id: z.number().int().nullable(), tabs: z.array(TabInfo()) }),
    cli: {
      words: ["tab", "list"],
      flags: { scope: { param: "scope", type: "enum", options: ["owned", "user", "all"], default: "owned", description: "Which tabs to list" } },
    },
  }),

  "tab.create": method({
    owner: "extension",
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
        url: { param: "url", type: "string", description: "URL to open" },
        background: { param: "background", type: "boolean", description: "Do not activate the tab in its window" },
      },
    },
  }),

  "tab.select": method({
    owner: "extension",
    scope: "session",
    description: "Make a tab the session's current tab and activate it.",
    params: () => z.object({ ...sessionParam(), tab_id: z.number().int().describe("Tab id") }),
    result: () => TabInfo(),
    cli: {
      words: ["tab", "select"],
      positionals: [{ param: "tab_id", description: "Tab id", required: true, type: "number" }],
      flags: { tab: { param: "tab_id", type: "number", description: "Tab id" } },
    },
  }),

  "tab.close": method({
    owner: "extension",
    scope: "session",
    description: "Close one of the session's tabs (default: the current one); borrowed tabs are refused.",
    params: () => z.object({ ...sessionParam(), tab_id: z.number().int().optional().describe("Tab id") }),
    result: () => z.object({ closed_tab_id: z.number().int(), current_tab_id: z.number().int().nullable() }),
    cli: {
      words: ["tab", "close"],
      positionals: [{ param: "tab_id", description: "Tab id (default: current tab)", type: "number" }],
      flags: { tab: { param: "tab_id", type: "number", description: "Tab id" } },
    },
  }),
};

/** Effect class of each method above; the compiler checks it names every one of them. */
export const tabEffects: Record<keyof typeof tabMethods, Effect> = {
  "tab.list": "PassiveRead",
  "tab.create": "BrowserMutation",
  "tab.select": "BrowserMutation",
  "tab.close": "BrowserMutation",
};
