/**
 * Run by extension-aim.test.ts in a process of its own: the worker's modules bind `chrome` when first imported, so
 * they get the fake browser here without touching the other unit tests' module cache. The page's answer to the focus
 * check (aim.ts) is injected: an exception, no value, an unreadable value, or "still aimed". Prints JSON.
 */
import { fakeBrowser } from "wxt/testing/fake-browser";

type Answer = Record<string, unknown>;
let answer: Answer = {};
const checks: string[] = [];
(fakeBrowser as { debugger?: unknown }).debugger = {
  attach: async () => undefined,
  detach: async () => undefined,
  sendCommand: async (_target: unknown, method: string) => {
    if (method !== "Runtime.callFunctionOn") return {};
    checks.push(method);
    return answer;
  },
  onEvent: { addListener: () => undefined },
  onDetach: { addListener: () => undefined },
};
(globalThis as { chrome?: unknown }).chrome = fakeBrowser;
const { bindKeys } = await import("../../../extension/src/page/input/aim.ts");

const out: Record<string, unknown> = {};
const cases: Record<string, Answer> = {
  threw: { exceptionDetails: { text: "Uncaught TypeError" } },
  no_value: { result: { type: "undefined" } },
  unreadable: { result: { type: "string", value: "{not json" } },
  aimed: { result: { type: "string", value: "1" } },
};
for (const [name, a] of Object.entries(cases)) {
  answer = a;
  const binding = bindKeys(7, { target: { tabId: 7 }, objectId: "el-1" }, "textbox 'Secret'", "characters", 5, false);
  try {
    await binding.after(2);
    out[name] = { aimed: true };
  } catch (err) {
    const e = err as { code?: string; message: string; hint?: string; data?: unknown };
    out[name] = { code: e.code, message: e.message, hint: e.hint, data: e.data };
  }
}
out.checks = checks.length;
console.log(JSON.stringify(out));
process.exit(0);
