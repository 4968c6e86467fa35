/** evaluate: run the agent's expression in the page (main world) and return its value as JSON. */
import type { Result } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";
import type { interactionMethods } from "../../../protocol/methods/interaction.ts";
import { send } from "../cdp.ts";
import type { FamilyHandlers } from "./handler.ts";
import { resolveTab } from "../sessions.ts";

interface RemoteObject {
  type: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
}

interface EvaluateReply {
  result: RemoteObject;
  exceptionDetails?: { text: string; exception?: RemoteObject };
}

/** typeof the value, refined to "null" and "array"; undefined becomes null; NaN, Infinity, -0, 1n as text. */
function describe(o: RemoteObject): Omit<Result<"evaluate">, "tab_id"> {
  if (o.type === "undefined") return { type: "undefined", value: null };
  if (o.subtype === "null") return { type: "null", value: null };
  const type = o.subtype === "array" ? "array" : o.type;
  if (o.unserializableValue !== undefined) return { type, value: o.unserializableValue };
  return { type, value: o.value ?? null };
}

function thrownText(details: NonNullable<EvaluateReply["exceptionDetails"]>): string {
  const e = details.exception;
  if (e?.description) return e.description;
  if (e && e.value !== undefined) return typeof e.value === "string" ? e.value : JSON.stringify(e.value);
  return details.text;
}

export const interactionHandlers: FamilyHandlers<typeof interactionMethods> = {
  evaluate: async (p, { signal }) => {
    const { tabId } = await resolveTab(p);
    const params = { expression: p.expression, returnByValue: true, awaitPromise: p.await_promise, userGesture: true, replMode: false };
    let reply: EvaluateReply;
    try {
      reply = await send<EvaluateReply>(tabId, "Runtime.evaluate", params, signal);
    } catch (err) {
      const cdpMessage = err instanceof BskError ? String(err.data?.cdp_message ?? "") : "";
      if (/by value|reference chain|serializ/i.test(cdpMessage)) {
        throw new BskError("evaluation_failed", `the value cannot be returned as JSON: ${cdpMessage}`, {
          hint: "Return plain data: pick the fields you need or wrap the value in JSON.stringify(...).",
          data: { reason: "not_serializable", exception: cdpMessage },
        });
      }
      throw err;
    }
    if (reply.exceptionDetails) {
      const text = thrownText(reply.exceptionDetails);
      throw new BskError("evaluation_failed", `the expression threw: ${text.split("\n")[0]}`, { data: { exception: text } });
    }
    return { tab_id: tabId, ...describe(reply.result) };
  },
};
