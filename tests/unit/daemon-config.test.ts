import { describe, expect, test } from "bun:test";
import { DEFAULTS, envMs, resolveConfig } from "../../daemon/config.ts";

describe("daemon config", () => {
  test("durations from the environment accept ms numbers and units; junk falls back", () => {
    expect(envMs({ X: "1500" }, "X", 1)).toBe(1500);
    expect(envMs({ X: "30s" }, "X", 1)).toBe(30_000);
    expect(envMs({ X: "5m" }, "X", 1)).toBe(300_000);
    expect(envMs({ X: "soon" }, "X", 7)).toBe(7);
    expect(envMs({ X: "" }, "X", 7)).toBe(7);
    expect(envMs({}, "X", 7)).toBe(7);
  });

  test("options beat the environment, which beats the defaults", () => {
    const env = { BSK_HOME: "/tmp/h-env", BSK_PORT: "6000", BSK_SESSION_IDLE_MS: "2s", BSK_HANDSHAKE_MS: "300" };
    const fromEnv = resolveConfig({ env });
    expect(fromEnv.paths.home).toBe("/tmp/h-env");
    expect(fromEnv.port).toBe(6000);
    expect(fromEnv.sessionIdleMs).toBe(2000);
    expect(fromEnv.handshakeMs).toBe(300);
    expect(fromEnv.daemonIdleMs).toBe(DEFAULTS.daemonIdleMs);
    expect(fromEnv.heartbeatMs).toBe(20_000);
    const explicit = resolveConfig({ env, home: "/tmp/h-opt", port: 7000, sessionIdleMs: 5, daemonIdleMs: 6 });
    expect([explicit.paths.home, explicit.port, explicit.sessionIdleMs, explicit.daemonIdleMs]).toEqual(["/tmp/h-opt", 7000, 5, 6]);
    const defaults = resolveConfig({ env: { HOME: "/home/x" } });
    expect(defaults.paths.home).toBe("/home/x/.bsk");
    expect(defaults.port).toBe(52800);
    expect(defaults.browserWaitMs).toBe(35_000);
    expect(defaults.reconnectGraceMs).toBe(10_000);
  });
});
