import { z } from "zod";
import { method, SessionId, Target, tabParams, WaitUntil } from "../define.ts";
import { waitUntilFlag } from "./navigation.ts";

/** Waiting for something to happen in the tab, or for time to pass. */
export const waitMethods = {
  wait_for: method({
    owner: "extension",
    effect: "PassiveRead",
    scope: "tab",
    description:
      "Wait for the next navigation, a URL pattern, an element state (attached, visible, hidden, detached) or text to appear or go.",
    params: () =>
      z
        .object({
          ...tabParams(),
          navigation: z.boolean().default(false).describe("Wait for the next main-frame navigation"),
          url: z.string().optional().describe("URL pattern: substring, glob with *, or /regex/"),
          target: Target().optional().describe("Element (@eN or selector) whose state to wait for"),
          state: z
            .enum(["attached", "visible", "hidden", "detached"])
            .default("visible")
            .describe("Element state to wait for (with target)"),
          text: z.string().optional().describe("Text that must appear on the page"),
          text_gone: z.string().optional().describe("Text that must disappear from the page"),
          wait_until: WaitUntil().default("load"),
        })
        .refine((p) => p.navigation || p.url !== undefined || p.target !== undefined || p.text !== undefined || p.text_gone !== undefined, {
          message: "give one of --navigation, --url, --target, --text or --text-gone",
        }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        url: z.string(),
        title: z.string(),
        matched: z.enum(["navigation", "url", "element", "text", "text_gone"]),
        waited_ms: z.number(),
      }),
    cli: {
      words: ["wait-for"],
      flags: {
        navigation: {},
        url: { description: "URL pattern (substring, glob with *, or /regex/)" },
        target: {},
        state: { description: "Element state to wait for" },
        text: { description: "Text that must appear" },
        "text-gone": { description: "Text that must disappear" },
        ...waitUntilFlag,
      },
      examples: [
        "bsk wait-for --url '*/dashboard*' --timeout 20s --session $S",
        "bsk wait-for --target '#results' --state visible --session $S",
        "bsk wait-for --text 'Order placed' --session $S",
      ],
    },
  }),

  wait: method({
    owner: "daemon",
    effect: "PassiveRead",
    scope: "none",
    description:
      "Wait a fixed time (at most 5 minutes); Ctrl-C or --timeout cancels it. With --session it is a call of that live session " +
      "(its idle and lease clocks wait too). Prefer bsk wait-for.",
    mcp: {
      hidden: [],
      description:
        "Wait a fixed time (at most 5 minutes); cancelling the call ends it. With session_id it is a call of that live session " +
        "(its idle and lease clocks wait too). Prefer bsk wait-for.",
    },
    params: () =>
      z.object({
        duration_ms: z.number().int().min(0).max(300_000).describe("How long"),
        session_id: SessionId().optional().describe("A live session this wait belongs to: keeps it from idling out meanwhile"),
      }),
    result: () => z.object({ waited_ms: z.number() }),
    waitParam: "duration_ms",
    cli: {
      words: ["wait"],
      positionals: [{ param: "duration_ms", description: "Duration, e.g. 500ms or 2s", required: true, type: "duration" }],
      flags: {
        session: { param: "session_id", env: "BSK_SESSION", description: "The live session this wait belongs to (renews its lease)" },
      },
    },
  }),
};
