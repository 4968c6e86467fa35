/**
 * What the worker keeps per tab goes when bsk detaches the tab itself (a borrowed tab returned, a tab it could not
 * return at a session's end): Chrome fires no onDetach then, and the console and network buffers of every such tab
 * stayed for the worker's life (issue #40, the worker's heap). Run in a process of its own with a fake browser
 * (tests/unit/worker/detach-forgets.ts).
 */
import { expect, test } from "bun:test";
import { workerAnswer } from "../run.ts";

test("tabs bsk detached itself leave no console or network buffers behind", async () => {
  const r = await workerAnswer(import.meta.dir, "worker/detach-forgets.ts");
  expect(r.heldWhileAttached).toBe(r.tabs);
  expect(r.heldAfterDetach).toBe(0);
});
