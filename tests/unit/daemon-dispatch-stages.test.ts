import { describe, expect, test } from "bun:test";
import { checkEffectGate } from "../../daemon/effect-gate.ts";
import { DAEMON_HANDLERS } from "../../daemon/handlers/index.ts";
import { isClientCallable, parseParams, resolveMethod } from "../../daemon/validate.ts";
import { METHOD_NAMES, METHODS, type MethodName } from "../../protocol/catalog.ts";

describe("effect gate", () => {
  const refused = (method: MethodName) => {
    try {
      checkEffectGate(method, "taken_over", "abcd");
      return false;
    } catch (e) {
      expect(e).toMatchObject({ code: "user_aborted", data: { reason: "taken_over" } });
      return true;
    }
  };

  test("while taken over, mutations, transient input and reads of a tab are refused with user_aborted / taken_over", () => {
    for (const m of [
      "click",
      "fill",
      "hover",
      "navigate",
      "tab.create",
      "snapshot",
      "get_html",
      "screenshot",
      "find",
      "console",
      "wait_for",
    ] as const) {
      expect(refused(m)).toBe(true);
    }
  });

  test("control-plane calls, the session's lists and request-help pass; nothing is gated while live", () => {
    for (const m of ["tab.list", "events", "request_help", "session.stop", "session.list"] as const) expect(refused(m)).toBe(false);
    expect(() => checkEffectGate("click", "live", "abcd")).not.toThrow();
    expect(() => checkEffectGate("snapshot", "live", "abcd")).not.toThrow();
  });
});

describe("method and params stages", () => {
  test("unknown methods and wire-only methods are unknown_method", () => {
    expect(() => resolveMethod("nope")).toThrow("unknown method");
    for (const m of ["system.handshake", "session.open", "session.close"]) {
      expect(isClientCallable(m as any)).toBe(false);
      expect(() => resolveMethod(m)).toThrow("only between the daemon and the extension");
    }
    expect(resolveMethod("cancel").name).toBe("cancel");
    expect(resolveMethod("system.shutdown").name).toBe("system.shutdown");
  });

  test("params are validated with defaults applied; the error names the first path", () => {
    expect(parseParams("navigate", { session_id: "abcd", url: "https://x.example" })).toMatchObject({ wait_until: "load" });
    expect(() => parseParams("navigate", { session_id: "abcd" })).toThrow("params.url");
    expect(() => parseParams("session.stop", {})).toThrow("give a session id or --all");
    try {
      parseParams("tab.select", { session_id: "abcd", tab_id: "x" });
    } catch (e) {
      expect(e).toMatchObject({ code: "invalid_params", data: { path: "tab_id" } });
    }
  });

  test("a key the method does not take is refused, not dropped (a newer client's safety flag on an older daemon)", () => {
    let caught: unknown;
    try {
      parseParams("navigate", { session_id: "abcd", url: "https://x.example", confirm_writez: true });
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({ code: "invalid_params", data: { params: ["confirm_writez"] } });
    expect(String((caught as Error).message)).toContain("does not take confirm_writez");
    // Every client-callable method's schema still takes what it lists.
    expect(parseParams("navigate", { session_id: "abcd", url: "https://x.example", wait_until: "load" })).toMatchObject({
      url: "https://x.example",
    });
  });

  test("every daemon-owned method a client may call has a handler", () => {
    const daemonOwned = METHOD_NAMES.filter((m) => isClientCallable(m) && METHODS[m].owner === "daemon");
    expect(daemonOwned).toContain("session.start");
    for (const m of daemonOwned) expect((DAEMON_HANDLERS as Record<string, unknown>)[m]).toBeFunction();
  });
});
