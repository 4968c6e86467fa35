import { z } from "zod";
import { type Effect, method, tabParams } from "../define.ts";

/** Acting on the page. (Pointer and keyboard actions join this family.) */
export const interactionMethods = {
  evaluate: method({
    owner: "extension",
    scope: "tab",
    description: "Run a JavaScript expression in the page and return its JSON value (promises are awaited); a throw is evaluation_failed.",
    params: () =>
      z.object({
        ...tabParams(),
        expression: z.string().min(1).describe("JavaScript expression"),
        await_promise: z.boolean().default(true).describe("Await a returned promise"),
      }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        type: z.string().describe("typeof the value (or 'null', 'array')"),
        value: z.unknown().describe("The value as JSON; undefined becomes null"),
      }),
    cli: {
      words: ["evaluate"],
      positionals: [{ param: "expression", description: "JavaScript expression", required: true, rest: true }],
      flags: { "no-await": { param: "await_promise", type: "boolean", value: false, description: "Do not await a returned promise" } },
      examples: ["bsk evaluate document.title --session $S", "bsk evaluate 'fetch(\"/api/me\").then(r => r.status)'"],
    },
  }),
};

/** Effect class of each method above; the compiler checks it names every one of them. */
export const interactionEffects: Record<keyof typeof interactionMethods, Effect> = {
  evaluate: "BrowserMutation",
};
