/**
 * The doorbell (extension/src/link/doorbell.ts, daemon/native-host/watch.ts): while the local link is down the
 * extension keeps a native host of this home watching for a daemon; when one writes daemon.json the host says so and
 * the extension connects at once, and once connected the host exits. A daemon that fails its proof still gets
 * nothing (trust.test.ts); here: the host runs exactly while it is needed, and only for this world's home.
 */
import { expect, test } from "bun:test";
import { processesOf, until, useWorld, type World } from "./harness.ts";

let w: World;

useWorld({}, (world) => (w = world));

/** Pids of `bsk native-host` processes of this world's home. */
const hostsOfThisHome = () => processesOf(w.home, "native-host");

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
