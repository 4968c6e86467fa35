/**
 * Sites that ask first, the parts without a browser: what the popup accepts as an origin, which methods are asked
 * (the catalog's effect classes, with approval in their results), the error's exit code, and the ledger keeping
 * each decision across a restart. The browser path is tests/e2e/approval.test.ts.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { FileLedger } from "../../daemon/ledger-file.ts";
import { MemoryLedger, type OpOutcome } from "../../daemon/ledger.ts";
import { askFirstOrigin } from "../../extension/src/features/approval/sites.ts";
import { approvalOf, ASKED_EFFECTS, type ApprovalRecord } from "../../protocol/approval.ts";
import { EFFECTS, METHOD_NAMES, METHODS } from "../../protocol/catalog.ts";
import { ERRORS } from "../../protocol/errors.ts";
import { tempDir } from "../temp.ts";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

const denied: ApprovalRecord = {
  decision: "denied",
  by: "person",
  description: "click button 'Pay now'",
  cause: "ask_first_site",
  origin: "https://bank.example",
  waited_ms: 1200,
};

describe("the popup's origins", () => {
  test("a site's address becomes its origin; anything not http(s) is refused", () => {
    expect(askFirstOrigin("https://bank.example")).toBe("https://bank.example");
    expect(askFirstOrigin("  bank.example ")).toBe("https://bank.example");
    expect(askFirstOrigin("http://localhost:8080/")).toBe("http://localhost:8080");
    expect(askFirstOrigin("https://bank.example/login?next=/pay#top")).toBe("https://bank.example");
    expect(askFirstOrigin("https://user:pw@bank.example/")).toBe("https://bank.example");
    for (const bad of ["", "ftp://files.example", "javascript:alert(1)", "file:///etc/passwd", "chrome://settings", "data:text/html,x"]) {
      expect({ bad, origin: askFirstOrigin(bad) }).toEqual({ bad, origin: null });
    }
  });
});

describe("which methods are asked", () => {
  test("every BrowserMutation and TransientInput method, and no read, says approval in its result", () => {
    const asked = METHOD_NAMES.filter((m) => ASKED_EFFECTS.has(EFFECTS[m]));
    expect(asked).toEqual(
      expect.arrayContaining(["click", "fill", "type", "press", "select", "check", "upload", "drag", "evaluate", "navigate", "hover"]),
    );
    for (const m of asked) {
      const shape = (METHODS[m].result() as { shape?: Record<string, unknown> }).shape;
      expect({ m, approval: shape !== undefined && "approval" in shape }).toEqual({ m, approval: true });
    }
    for (const m of ["snapshot", "screenshot", "get_html", "find", "wait_for"] as const) expect(ASKED_EFFECTS.has(EFFECTS[m])).toBe(false);
  });

  test("approval_denied has its own exit code and a hint that says not to retry blindly", () => {
    const exits = Object.values(ERRORS).map((e) => e.exit);
    expect(ERRORS.approval_denied.exit).toBe(12);
    expect(exits.filter((x) => x === 12)).toHaveLength(1);
    expect(ERRORS.approval_denied.hint).toContain("Do not retry");
  });

  test("the approval a reply carries is read from the result or the error's data, and only when well formed", () => {
    expect(approvalOf({ result: { clicked: true, approval: { ...denied, decision: "allowed" } } })?.decision).toBe("allowed");
    expect(approvalOf({ error: { data: { effect_state: "none", approval: denied } } })).toEqual(denied);
    expect(approvalOf({ result: { approval: { decision: "maybe" } } })).toBeUndefined();
    expect(approvalOf({ result: null })).toBeUndefined();
  });
});

describe("the ledger keeps each decision", () => {
  const outcome: OpOutcome = {
    state: "not_executed",
    effect_state: "none",
    reason: "approval_denied",
    approval: denied,
    reply: { error: { code: "approval_denied", message: "no", hint: "", data: { effect_state: "none", approval: denied } } },
  };
  const reservation = (l: { hashParams: (m: string, p: unknown) => string }) => ({
    op_id: "o1",
    method: "click",
    params_hash: l.hashParams("click", { session_id: "abcd", target: "@e3" }),
    session_id: "abcd",
    trace_id: "t1",
  });

  test("in memory", async () => {
    const l = new MemoryLedger();
    await l.reserve(reservation(l));
    await l.outcome("o1", outcome);
    expect(l.list().ops[0]).toMatchObject({ state: "not_executed", reason: "approval_denied", approval: denied });
  });

  test("on disk, across a restart", async () => {
    const d = `${tempDir("bsk-approval-")}`;
    homes.push(d);
    const a = await FileLedger.open(`${d}/ledger`);
    await a.reserve(reservation(a));
    await a.outcome("o1", outcome);
    expect(a.list().ops[0]?.approval).toEqual(denied);
    await a.close();
    const b = await FileLedger.open(`${d}/ledger`);
    expect(b.list().ops[0]).toMatchObject({ op_id: "o1", approval: denied });
    const again = await b.reserve(reservation(b));
    expect(again.kind === "replay" && again.record.outcome?.approval).toEqual(denied);
    await b.close();
  });
});
