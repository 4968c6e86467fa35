/** The extension's outgoing events: numbering for acknowledgement, resend after a reconnect, bounds, coalescing. */
import { describe, expect, test } from "bun:test";
import { Coalescer } from "../../extension/src/ports/coalesce.ts";
import { EventQueue, freshState } from "../../extension/src/ports/queue.ts";

describe("EventQueue", () => {
  test("numbers what it sends, forgets what is acknowledged, resends the rest after a handshake", () => {
    const q = new EventQueue(freshState("s1"));
    expect([q.number("a", 1).seq, q.number("b", 2).seq, q.number("c", 3).seq]).toEqual([1, 2, 3]);
    expect(q.ack(1)).toBe(true);
    expect(q.ack(1)).toBe(false);
    // The link drops; d is emitted while no daemon listens.
    q.hold("d", 4);
    // The daemon had recorded 2 before the drop: 3 goes again with its seq, then d gets the next one.
    expect(q.resume(2).map((n) => [n.seq, n.event])).toEqual([
      [3, "c"],
      [4, "d"],
    ]);
    expect(q.state.queued).toEqual([]);
  });

  test("a daemon that has seen more than this worker remembers moves the numbering past it (no seq is reused)", () => {
    const q = new EventQueue({ ...freshState("s1"), next: 3 });
    q.hold("x", 0);
    expect(q.resume(7).map((n) => n.seq)).toEqual([8]);
    expect(q.number("y", 0).seq).toBe(9);
  });

  test("is bounded: the oldest go first and are counted", () => {
    const q = new EventQueue(freshState("s1"), 3);
    for (let i = 0; i < 2; i++) q.number("sent", i);
    for (let i = 0; i < 3; i++) q.hold("held", i);
    expect(q.state.dropped).toBe(2);
    expect(q.state.sent).toEqual([]);
    expect(q.state.queued.map((e) => e.payload)).toEqual([0, 1, 2]);
  });

  test("what the bound drops is counted per session with the time it spans, reported once (events.lost)", () => {
    const q = new EventQueue(freshState("s1"), 2);
    q.hold("a", { session_id: "A" }, 100);
    q.hold("b", { session_id: "B" }, 150);
    q.hold("c", { session_id: "A" }, 200);
    q.hold("d", { session_id: "A" }, 300);
    q.hold("e", { session_id: "B" }, 400);
    expect(q.takeLost()).toEqual({ A: { count: 2, from: 100, to: 200 }, B: { count: 1, from: 150, to: 150 } });
    expect(q.takeLost()).toEqual({});
    // The count lives in the stored state: a worker stopped before sending it still says so after waking.
    q.hold("f", { session_id: "B" }, 500);
    expect(new EventQueue(JSON.parse(JSON.stringify(q.state)), 2).takeLost()).toEqual({ A: { count: 1, from: 300, to: 300 } });
  });

  test("its state is plain data (it lives in chrome.storage.session) and picks up where it left", () => {
    const a = new EventQueue(freshState("s1"));
    a.number("a", { x: 1 });
    const b = new EventQueue(JSON.parse(JSON.stringify(a.state)));
    expect(b.resume(0).map((n) => [n.seq, n.event, n.payload])).toEqual([[1, "a", { x: 1 }]]);
  });
});

/** Timers the test fires by hand. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let id = 0;
  return {
    timers: {
      set: (fn: () => void) => {
        pending.set(++id, fn);
        return id;
      },
      clear: (h: unknown) => void pending.delete(h as number),
    },
    fireAll() {
      const fns = [...pending.values()];
      pending.clear();
      for (const fn of fns) fn();
    },
    get count() {
      return pending.size;
    },
  };
}

describe("Coalescer", () => {
  test("the first of a burst goes at once, the rest as one event with the last payload and a count", () => {
    const out: [string, Record<string, unknown>][] = [];
    const t = manualTimers();
    const c = new Coalescer((e, p) => out.push([e, p]), 250, t.timers);
    for (let i = 0; i < 1000; i++) c.push("console.error:1", "console.error", { text: `e${i}` });
    expect(out).toEqual([["console.error", { text: "e0" }]]);
    t.fireAll();
    expect(out[1]).toEqual(["console.error", { text: "e999", count: 999 }]);
    // The window reopened while busy; a quiet one closes for good and the next burst leads again.
    t.fireAll();
    expect(t.count).toBe(0);
    c.push("console.error:1", "console.error", { text: "later" });
    expect(out).toHaveLength(3);
    expect(out.reduce((n, [, p]) => n + (Number(p.count) || 1), 0)).toBe(1001);
  });

  test("kinds and tabs burst separately; flush sends what is folded, oldest window first", () => {
    const out: string[] = [];
    const t = manualTimers();
    const c = new Coalescer((e, p) => out.push(`${e}:${p.n}${p.count ? `×${p.count}` : ""}`), 250, t.timers);
    c.push("console.error:1", "console.error", { n: 1 });
    c.push("request.failed:1", "request.failed", { n: 2 });
    c.push("console.error:2", "console.error", { n: 3 });
    c.push("console.error:1", "console.error", { n: 4 });
    c.push("request.failed:1", "request.failed", { n: 5 });
    c.push("console.error:1", "console.error", { n: 6 });
    c.flush();
    expect(out).toEqual(["console.error:1", "request.failed:2", "console.error:3", "console.error:6×2", "request.failed:5×1"]);
    expect(t.count).toBe(0);
  });

  test("pending: what is folded and not yet sent, as it would go out (kept so a stopped worker keeps it)", () => {
    const out: string[] = [];
    const t = manualTimers();
    const c = new Coalescer((e) => out.push(e), 250, t.timers);
    c.push("console.error:1", "console.error", { n: 1 });
    expect(c.pending()).toEqual([]);
    c.push("console.error:1", "console.error", { n: 2 });
    c.push("console.error:1", "console.error", { n: 3 });
    expect(c.pending()).toEqual([{ event: "console.error", payload: { n: 3, count: 2 } }]);
    c.flush();
    expect(c.pending()).toEqual([]);
  });
});
