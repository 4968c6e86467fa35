/**
 * A fresh daemon's first calls wait for nothing: the start-up work (every method's params schema built and its parser
 * compiled by zod) is done before the daemon says ready, not left to run on the event loop beside the first calls.
 */
import { expect, test } from "bun:test";
import { forgetSchemas, unwarmedMethods } from "../../daemon/validate.ts";
import { withDaemon } from "./harness.ts";

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
