/** When a busy tab's glow goes on and off (extension/src/features/overlay/glow.ts), driven by a hand-held clock. */
import { describe, expect, test } from "bun:test";
import { Glow, type GlowTimers } from "../../extension/src/features/overlay/glow.ts";

/** Timers that fire only when the test says so. */
function heldTimers(): GlowTimers & { fire(): void; count(): number } {
  const live = new Map<number, () => void>();
  let next = 0;
  return {
    set(fn) {
      live.set(++next, fn);
      return next;
    },
    clear(handle) {
      live.delete(handle as number);
    },
    fire() {
      const due = [...live.values()];
      live.clear();
      for (const fn of due) fn();
    },
    count: () => live.size,
  };
}

function world() {
  const timers = heldTimers();
  const pushed: number[] = [];
  const glow = new Glow((tabId) => pushed.push(tabId), timers, 150);
  return { timers, pushed, glow };
}

describe("the busy glow", () => {
  test("a call that ends before the delay never lights it, and nothing is pushed", () => {
    const { timers, pushed, glow } = world();
    glow.busy(7, true);
    expect(glow.isLit(7)).toBe(false);
    glow.busy(7, false);
    expect(timers.count()).toBe(0);
    timers.fire();
    expect(glow.isLit(7)).toBe(false);
    expect(pushed).toEqual([]);
  });

  test("a call still running after the delay lights it; its end puts it out at once", () => {
    const { timers, pushed, glow } = world();
    glow.busy(7, true);
    timers.fire();
    expect(glow.isLit(7)).toBe(true);
    expect(pushed).toEqual([7]);
    glow.busy(7, false);
    expect(glow.isLit(7)).toBe(false);
    expect(pushed).toEqual([7, 7]);
  });

  test("busy again while lit or pending starts no second timer; tabs are apart", () => {
    const { timers, pushed, glow } = world();
    glow.busy(7, true);
    glow.busy(7, true);
    glow.busy(8, true);
    expect(timers.count()).toBe(2);
    glow.busy(8, false);
    timers.fire();
    expect(glow.isLit(7)).toBe(true);
    expect(glow.isLit(8)).toBe(false);
    glow.busy(7, true);
    expect(timers.count()).toBe(0);
    expect(pushed).toEqual([7]);
  });

  test("idle for a tab that never was busy changes nothing", () => {
    const { pushed, glow } = world();
    glow.busy(9, false);
    expect(pushed).toEqual([]);
  });
});
