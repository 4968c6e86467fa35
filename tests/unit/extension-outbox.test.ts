/**
 * The outbox keeps every event in storage before it goes to the daemon, and a call's reply waits until its events
 * are handed over. A page flooding events (console errors, failed requests) once cost one storage write per event:
 * a backlog of writes built up, every reply waited behind it, and the flooded tab's calls ran out of time (the soak's
 * flood_page). Now one write is out at a time and what changed meanwhile goes in the next one. Run in a process of
 * its own with a fake browser whose storage answers one write at a time (tests/unit/worker/outbox-flood.ts).
 */
import { expect, test } from "bun:test";
import { workerAnswer } from "../run.ts";

test("a flood of events while storage is slow: one write out at a time, every frame delivered in order", async () => {
  const r = await workerAnswer(import.meta.dir, "worker/outbox-flood.ts");
  expect(r.most).toBe(1);
  expect(r.writes).toBeLessThan(10);
  expect(r.frames).toBe(1000);
  expect(r.inOrder).toBe(true);
  expect(r.handed).toBe(true);
});
