/**
 * A fresh daemon's first calls wait for nothing: the start-up work (every method's params schema built and its parser
 * compiled by zod) is done before the daemon says ready, not left to run on the event loop beside the first calls.
 * It runs once the daemon listens, so a cold start's browser link does not wait for it (daemon/warm-up.ts).
 */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { forgetSchemas, unwarmedMethods } from "../../daemon/validate.ts";
import { tempHome, withDaemon } from "./harness.ts";

test("when it says ready, no method's schema is left to build or compile: the first call pays for none", async () => {
  // As in a fresh process (an earlier test in this one may have built them).
  forgetSchemas();
  let left: string[] | undefined;
  // Read in the ready callback itself: nothing the daemon scheduled for later has run yet.
  await withDaemon({ onReady: () => (left = unwarmedMethods()) }, async (d) => {
    expect(left).toEqual([]);
    expect((await (await d.client()).call("system.status")).daemon.pid).toBe(process.pid);
  });
});

test("it listens and has written daemon.json before the warm-up: a cold start's browser link need not wait for it", async () => {
  forgetSchemas();
  const home = tempHome();
  const seen: string[] = [];
  let left: string[] | undefined;
  let advertised = false;
  // withDaemon removes the home it was given once the daemon has stopped.
  await withDaemon(
    {
      home,
      onListening: () => {
        seen.push("listening");
        left = unwarmedMethods();
        advertised = existsSync(join(home, "daemon.json"));
      },
      onReady: () => seen.push("ready"),
    },
    async () => {
      expect(seen).toEqual(["listening", "ready"]);
      // daemon.json (what rings the extension in) was there and nothing was built yet: the warm-up came after it.
      expect(advertised).toBe(true);
      expect(left?.length).toBeGreaterThan(0);
      expect(unwarmedMethods()).toEqual([]);
    },
  );
});
