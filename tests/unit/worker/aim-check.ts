/**
 * Run by extension-aim.test.ts in a process of its own: the worker's modules bind `chrome` when first imported, so
 * they get the fake browser here without touching the other unit tests' module cache. The page's answer to the focus
 * check (aim.ts) is injected: an exception, no value, an unreadable value, or "still aimed". Prints JSON.
 */
import { fakeBrowser } from "wxt/testing/fake-browser";

type Answer = Record<string, unknown>;
let answer: Answer = {};
const checks: string[] = [];
/** The look sent along with the keys (its declaration waits for `keyups`): its answer, or never one (null). */
let alongAnswer: Answer | null | "fail" = {};
const alongs: string[] = [];
(fakeBrowser as { debugger?: unknown }).debugger = {
  attach: async () => undefined,
  detach: async () => undefined,
  sendCommand: async (_target: unknown, method: string, params?: { functionDeclaration?: string }) => {
    if (method !== "Runtime.callFunctionOn") return {};
    if (params?.functionDeclaration?.includes("keyups")) {
      alongs.push(method);
      if (alongAnswer === "fail") throw new Error("No node with given id found");
      return alongAnswer ?? new Promise(() => undefined);
    }
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
    await binding.after(2, Promise.resolve());
    out[name] = { aimed: true };
  } catch (err) {
    const e = err as { code?: string; message: string; hint?: string; data?: unknown };
    out[name] = { code: e.code, message: e.message, hint: e.hint, data: e.data };
  }
}
out.checks = checks.length;

// The look sent along with the keys: only its "still aimed" or "moved" is taken; anything else (it could not wait,
// failed, threw, never answered) is no answer, and the check is made after the keys' answer as above.
const keys = [
  { type: "keyDown" as const, key: "a", code: "KeyA", windowsVirtualKeyCode: 65, modifiers: 0, text: "a" },
  { type: "keyUp" as const, key: "a", code: "KeyA", windowsVirtualKeyCode: 65, modifiers: 0 },
];
const moved = JSON.stringify({ role: "textbox", name: "Other", frame: false });
const alongCases: Record<string, [Answer | null | "fail", Answer]> = {
  along_aimed: [{ result: { type: "string", value: "1" } }, cases.threw!],
  along_moved: [{ result: { type: "string", value: moved } }, cases.aimed!],
  along_cannot_wait: [{ result: { type: "string", value: "" } }, cases.threw!],
  along_threw: [{ exceptionDetails: { text: "Uncaught" } }, cases.aimed!],
  along_failed: ["fail", cases.aimed!],
  along_never: [null, cases.threw!],
};
for (const [name, [along, after]] of Object.entries(alongCases)) {
  alongAnswer = along;
  answer = after;
  const [looks, plain] = [alongs.length, checks.length];
  const binding = bindKeys(7, { target: { tabId: 7 }, objectId: "el-1" }, "textbox 'Secret'", "characters", 5, false);
  binding.sent(1, keys);
  try {
    await binding.after(1, Promise.resolve());
    out[name] = { aimed: true };
  } catch (err) {
    const e = err as { code?: string; data?: Record<string, unknown> };
    out[name] = { code: e.code, reason: e.data?.reason ?? null, focus: e.data?.focus ?? null };
  }
  out[name] = { ...(out[name] as object), looks: alongs.length - looks, checks: checks.length - plain };
}
// The last batch needs no look: nothing follows it.
const last = bindKeys(7, { target: { tabId: 7 }, objectId: "el-1" }, "textbox 'Secret'", "characters", 1, false);
const before = alongs.length;
last.sent(1, keys);
out.last_looks = alongs.length - before;
console.log(JSON.stringify(out));
process.exit(0);
