/** The daemon's idle collection (daemon/idle-gc.ts): only after new calls, never while one is in flight. */
import { expect, test } from "bun:test";
import { IdleGc } from "../../daemon/idle-gc.ts";

test("collects once after calls came and none is in flight; not while one runs; not when nothing came", () => {
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
    gc.tick();
    expect(collected).toBe(1);
    handled = 6;
    gc.tick();
    expect(collected).toBe(2);
  } finally {
    gc.stop();
  }
});
