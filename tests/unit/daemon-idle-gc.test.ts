/** The daemon's idle collection (daemon/idle-gc.ts): only after new calls, never while one is in flight. */
import { expect, test } from "bun:test";
import { IdleGc } from "../../daemon/idle-gc.ts";

test("collects after calls came, when none is in flight; busy, it waits one look, then collects anyway", () => {
  let handled = 0;
  let inFlight = 0;
  let collected = 0;
  const gc = new IdleGc({ handled: () => handled, inFlight: () => inFlight, collect: () => collected++, everyMs: 3_600_000 });
  try {
    gc.tick();
    expect(collected).toBe(0);
    handled = 5;
    inFlight = 1;
    gc.tick();
    expect(collected).toBe(0);
    inFlight = 0;
    gc.tick();
    expect(collected).toBe(1);
    // Always busy (an events --follow open, agents calling back to back): one look passes, the next collects.
    handled = 9;
    inFlight = 2;
    gc.tick();
    expect(collected).toBe(1);
    gc.tick();
    expect(collected).toBe(2);
    inFlight = 0;
    gc.tick();
    expect(collected).toBe(2);
    handled = 10;
    gc.tick();
    expect(collected).toBe(3);
  } finally {
    gc.stop();
  }
});

test("each collection is reported once, with what it took", () => {
  let handled = 0;
  const reports: number[] = [];
  const gc = new IdleGc({
    handled: () => handled,
    inFlight: () => 0,
    collect: () => {},
    onCollected: (ms) => reports.push(ms),
    everyMs: 3_600_000,
  });
  try {
    gc.tick();
    expect(reports).toHaveLength(0);
    handled = 1;
    gc.tick();
    gc.tick();
    expect(reports).toHaveLength(1);
    expect(reports[0]).toBeGreaterThanOrEqual(0);
  } finally {
    gc.stop();
  }
});
