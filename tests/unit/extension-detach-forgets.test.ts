/**
 * What the worker keeps per tab goes when bsk detaches the tab itself (a borrowed tab returned, a tab it could not
 * return at a session's end): Chrome fires no onDetach then, and the console and network buffers of every such tab
 * stayed for the worker's life (issue #40, the worker's heap). Each session's last snapshot of each tab (the base of
 * --diff and find) stayed too, even for tabs closed long ago. Run in a process of its own with a fake browser
 * (tests/unit/worker/detach-forgets.ts).
 */
import { expect, test } from "bun:test";
import { workerAnswer } from "../run.ts";

let answer: Promise<any> | undefined;
const run = () => (answer ??= workerAnswer(import.meta.dir, "worker/detach-forgets.ts"));

test("tabs bsk detached itself leave no console or network buffers behind", async () => {
  const r = await run();
  expect(r.heldWhileAttached).toBe(r.tabs);
  expect(r.logsAfterDetach).toBe(0);
});

test("a detached tab's last snapshot goes; those of tabs never detached are bounded, the newest kept", async () => {
  const r = await run();
  expect(r.snapshotsAfterDetach).toBe(0);
  expect(r.snapshotsAfterMany).toBe(r.maxLast);
  expect(r.maxLast).toBeLessThan(r.many);
  expect(r.newestKept).toBe(true);
});

test("a tab remembers the navigation requests of a bounded number of frames, none once detached", async () => {
  const r = await run();
  expect(r.framesRemembered).toBe(r.maxFrames);
  expect(r.maxFrames).toBeLessThan(r.frames);
  expect(r.framesAfterDetach).toBe(0);
});
