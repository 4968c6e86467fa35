import { describe, expect, test } from "bun:test";
import { callBudgetMs, DEFAULT_TIMEOUT_MS, WAIT_SLACK_MS } from "../../daemon/deadline.ts";

describe("call deadline", () => {
  test("defaults to 30 s, or the caller's timeout", () => {
    expect(callBudgetMs({}, {})).toBe(DEFAULT_TIMEOUT_MS);
    expect(callBudgetMs({}, {}, 500)).toBe(500);
  });

  test("a method's own longer wait extends the deadline by the slack", () => {
    const def = { waitParam: "timeout_ms" };
    expect(callBudgetMs(def, { timeout_ms: 120_000 }, 30_000)).toBe(120_000 + WAIT_SLACK_MS);
    expect(callBudgetMs(def, { timeout_ms: 1_000 }, 30_000)).toBe(30_000);
    expect(callBudgetMs(def, {}, 2_000)).toBe(2_000);
    expect(callBudgetMs(def, { timeout_ms: "long" }, 2_000)).toBe(2_000);
  });
});
