/** The daemon link's pure parts: the back-off's limits, and what a remote server's close means. */
import { describe, expect, test } from "bun:test";
import { Backoff } from "../../extension/src/link/backoff.ts";
import { GRANT_EXPIRED_CLOSE, REVOKED_CLOSE, stopReason } from "../../extension/src/link/remote/stop-reason.ts";

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
