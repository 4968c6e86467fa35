import { z } from "zod";
import { method, tabParams } from "../define.ts";

const cursorParams = () => ({
  ...tabParams(),
  since: z.number().int().min(0).default(0).describe("Only entries after this sequence number (the last call's next_since)"),
  limit: z.number().int().min(1).max(500).default(50).describe("Most entries to return"),
  max_text_chars: z.number().int().min(80).max(16_384).default(1000).describe("Cut each text at this many characters"),
});

const cursorFlags = {
  since: { description: "Only entries after this sequence number" },
  limit: {},
  "max-text": { param: "max_text_chars", description: "Cut each text at this many characters" },
} as const;

/** What the page said and fetched: per-tab ring buffers read with a --since cursor. */
export const diagnosticsMethods = {
  console: method({
    owner: "extension",
    effect: "PassiveRead",
    runsUnderDialog: true,
    scope: "tab",
    description: "Console messages and uncaught errors of the tab since a cursor.",
    params: () =>
      z.object({ ...cursorParams(), level: z.enum(["debug", "log", "info", "warning", "error"]).optional().describe("Minimum level") }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        messages: z.array(
          z.object({
            seq: z.number().int(),
            level: z.string(),
            text: z.string(),
            url: z.string().optional(),
            line: z.number().int().optional(),
            ts: z.string(),
          }),
        ),
        next_since: z.number().int(),
        dropped: z.number().int().describe("Entries lost to the ring buffer before since"),
      }),
    cli: {
      words: ["console"],
      flags: {
        ...cursorFlags,
        level: {},
      },
    },
  }),

  network: method({
    owner: "extension",
    effect: "PassiveRead",
    runsUnderDialog: true,
    scope: "tab",
    description: "Requests of the tab since a cursor: method, URL, status, type, failures and timing.",
    params: () =>
      z.object({ ...cursorParams(), failed: z.boolean().default(false).describe("Only failed requests (network error or HTTP ≥ 400)") }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        requests: z.array(
          z.object({
            seq: z.number().int(),
            method: z.string(),
            url: z.string(),
            type: z.string(),
            status: z.number().int().nullable(),
            error: z.string().optional(),
            duration_ms: z.number().nullable(),
            ts: z.string(),
          }),
        ),
        next_since: z.number().int(),
        dropped: z.number().int(),
      }),
    cli: {
      words: ["network"],
      flags: { ...cursorFlags, failed: { description: "Only failed requests" } },
    },
  }),
};
