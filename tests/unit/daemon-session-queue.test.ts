import { describe, expect, test } from "bun:test";
import { BskError } from "../../protocol/errors.ts";
import { SessionQueue } from "../../daemon/session-queue.ts";

function gate() {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { promise, open: resolve };
}

describe("SessionQueue", () => {
  test("runs one call at a time in arrival order", async () => {
    const q = new SessionQueue(8);
    const log: string[] = [];
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g, i) =>
      q.run(new AbortController().signal, async () => {
        log.push(`start ${i}`);
        await g.promise;
        log.push(`end ${i}`);
        return i;
      }),
    );
    await Bun.sleep(0);
    expect(log).toEqual(["start 0"]);
    expect(q.depth).toBe(2);
    gates[2]!.open();
    gates[1]!.open();
    gates[0]!.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(log).toEqual(["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"]);
    expect(q.busy).toBe(false);
  });

  test("refuses a call past the limit of waiting calls with session_busy / queue_full", async () => {
    const q = new SessionQueue(1);
    const g = gate();
    const first = q.run(new AbortController().signal, () => g.promise);
    const second = q.run(new AbortController().signal, async () => "second");
    const third = q.run(new AbortController().signal, async () => "third");
    const err = await third.catch((e) => e);
    expect(err).toBeInstanceOf(BskError);
    expect(err).toMatchObject({ code: "session_busy", data: { reason: "queue_full" } });
    g.open();
    await first;
    expect(await second).toBe("second");
  });

  test("an aborted waiting call leaves the queue and the next one moves up", async () => {
    const q = new SessionQueue(8);
    const g = gate();
    const first = q.run(new AbortController().signal, () => g.promise);
    const ac = new AbortController();
    let ran = false;
    const dropped = q.run(ac.signal, async () => {
      ran = true;
    });
    const third = q.run(new AbortController().signal, async () => "third");
    ac.abort(new BskError("cancelled", "x"));
    expect(await dropped.catch((e) => e.code)).toBe("cancelled");
    expect(q.depth).toBe(1);
    g.open();
    await first;
    expect(await third).toBe("third");
    expect(ran).toBe(false);
  });

  test("a failing call frees the slot", async () => {
    const q = new SessionQueue(8);
    const failing = q.run(new AbortController().signal, async () => {
      throw new Error("boom");
    });
    await expect(failing).rejects.toThrow("boom");
    expect(await q.run(new AbortController().signal, async () => 1)).toBe(1);
  });

  test("an already aborted signal never enters the queue", async () => {
    const q = new SessionQueue(8);
    const ac = new AbortController();
    ac.abort(new BskError("timeout", "late"));
    await expect(q.run(ac.signal, async () => 1)).rejects.toMatchObject({ code: "timeout" });
    expect(q.busy).toBe(false);
  });
});
