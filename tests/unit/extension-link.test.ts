/** The daemon link's pure parts: the back-off's limits, and what a remote server's close means. */
import { describe, expect, test } from "bun:test";
import { Backoff } from "../../extension/src/link/backoff.ts";
import { GRANT_EXPIRED_CLOSE, readRefusal, REVOKED_CLOSE, stopReason } from "../../extension/src/link/remote/stop-reason.ts";

describe("Backoff", () => {
  test("doubles from its least delay up to its limit, and starts over on reset", () => {
    const local = new Backoff(250, 2_000);
    expect([local.next(), local.next(), local.next(), local.next(), local.next(), local.next()]).toEqual([
      250, 500, 1000, 2000, 2000, 2000,
    ]);
    local.reset();
    expect(local.next()).toBe(250);
    const remote = new Backoff(500, 30_000);
    const delays = Array.from({ length: 8 }, () => remote.next());
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});

describe("stopReason", () => {
  test("revoked and expired closes, and the server's refusals, stop the loop; anything else is retried", () => {
    expect(stopReason(REVOKED_CLOSE, "device revoked")).toBe("revoked");
    expect(stopReason(GRANT_EXPIRED_CLOSE, "grant_expired")).toBe("expired");
    // A refusal before the close names the reason; the close itself is a plain one.
    expect(stopReason(1000, "grant_expired")).toBe("expired");
    expect(stopReason(1000, "device_not_paired")).toBe("refused");
    expect(stopReason(1006, "")).toBeNull();
    expect(stopReason(1000, "handshake refused")).toBeNull();
    expect(stopReason(4000, "system.hello timed out")).toBeNull();
  });
});

describe("readRefusal", () => {
  test("a server's refusal: its reason, its words (message. hint) and the popup's code", () => {
    expect(
      readRefusal({ code: "permission_denied", message: "grant expired", hint: "pair again", data: { reason: "grant_expired" } }),
    ).toEqual({
      reason: "grant_expired",
      text: "grant expired. pair again",
      code: "expired",
    });
    expect(readRefusal({ message: "slow down", data: { reason: "rate_limited" } })).toEqual({
      reason: "rate_limited",
      text: "slow down",
      code: "rate_limited",
    });
    expect(readRefusal(undefined)).toEqual({ reason: undefined, text: "refused", code: "refused" });
  });

  test("a hostile server: no prototype key becomes a code, nothing but strings is shown, and nothing long", () => {
    for (const reason of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      expect(readRefusal({ message: "x", data: { reason } }).code).toBe("refused");
    }
    const huge = "A".repeat(1_000_000);
    const r = readRefusal({ message: huge, hint: huge, data: { reason: huge } });
    expect(r.text.length).toBe(300 + ". ".length + 300);
    expect(r.reason!.length).toBe(64);
    expect(r.code).toBe("refused");
    expect(readRefusal({ message: { toString: () => "evil" }, hint: 42, data: "grant_expired" })).toEqual({
      reason: undefined,
      text: "refused",
      code: "refused",
    });
    expect(readRefusal("grant_expired")).toEqual({ reason: undefined, text: "refused", code: "refused" });
    expect(readRefusal(null).text).toBe("refused");
  });
});
