/** The tests' own port picker (tests/ports.ts): out of the kernel's ephemeral range, and free when handed out. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { freePort } from "../ports.ts";

test("freePort hands out ports below the ephemeral range that a listener can take", async () => {
  const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(low);
    Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
  }
});
