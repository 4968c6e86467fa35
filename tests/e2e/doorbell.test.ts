/**
 * The doorbell (extension/src/link/doorbell.ts, daemon/native-host/watch.ts): while the local link is down the
 * extension keeps a native host of this home watching for a daemon; when one writes daemon.json the host says so and
 * the extension connects at once, and once connected the host exits. A daemon that fails its proof still gets
 * nothing (trust.test.ts); here: the host runs exactly while it is needed, and only for this world's home.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { until, useWorld, type World } from "./harness.ts";

let w: World;

useWorld({}, (world) => (w = world));

/** Pids of `bsk native-host` processes whose BSK_HOME is this world's. */
function hostsOfThisHome(): number[] {
  const pids: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      if (!cmd.includes("native-host")) continue;
      const env = readFileSync(`/proc/${d}/environ`, "utf8").split("\0");
      if (env.includes(`BSK_HOME=${w.home}`)) pids.push(Number(d));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

test("a host watches while the link is down, rings the new daemon in and exits once connected", async () => {
  await w.ok(["browsers"]);
  await until("no doorbell while connected", () => hostsOfThisHome().length === 0);
  await w.bsk(["daemon", "stop"]);
  const [host] = await until("a doorbell host for this home while the daemon is down", () => {
    const h = hostsOfThisHome();
    return h.length === 1 && h;
  });
  // Any command brings up a new daemon: the extension connects (the doorbell rang it in) and the host is gone.
  await until("the browser connected", async () => (await w.ok(["browsers"])).browsers?.length > 0);
  expect(hostsOfThisHome().length).toBeLessThanOrEqual(1);
  await until("the doorbell host exited once connected", () => !hostsOfThisHome().includes(host!));
});
