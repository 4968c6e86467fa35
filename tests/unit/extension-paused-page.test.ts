/**
 * The paused-page verdict (page/paused-page.ts) against a page modelled the way a renderer takes CDP commands: in the
 * order sent, one reply channel, a resolved promise settled before the next command unless the page is paused.
 */
import { describe, expect, test } from "bun:test";
import { looksPaused } from "../../extension/src/page/paused-page.ts";

type Reply = { resolve: (v: unknown) => void; reject: (e: unknown) => void };

/** A page that takes each question when `step()` is called, in order; `paused` pages never settle a promise. */
function fakePage(opts: { paused?: boolean; contextGone?: boolean } = {}) {
  const queue: { expression: string; awaitPromise: boolean; reply: Reply }[] = [];
  const asked: string[] = [];
  const ask = (expression: string, awaitPromise: boolean) =>
    new Promise((resolve, reject) => {
      asked.push(expression);
      queue.push({ expression, awaitPromise, reply: { resolve, reject } });
    });
  /** Takes `n` queued questions (all by default): a page busy in bursts takes one, runs its own task, takes the next. */
  const step = (n = queue.length) => {
    for (const q of queue.splice(0, n)) {
      if (opts.contextGone) q.reply.reject(new Error("Cannot find context with specified id"));
      else if (q.awaitPromise && opts.paused) continue;
      else q.reply.resolve({ result: { value: 0 } });
    }
  };
  return { ask, asked, step };
}

describe("a page the browser holds paused", () => {
  test("the promise question goes first and the plain one right behind it", async () => {
    const page = fakePage();
    const verdict = looksPaused(page.ask, 1000);
    page.step();
    expect(await verdict).toBe(false);
    expect(page.asked).toEqual(["Promise.resolve(0)", "0"]);
  });

  test("a page busy in bursts, its first answer inside the deadline and its second outside, is not paused", async () => {
    // The CI failure: the plain question (then asked first) was answered just inside the deadline, a burst of the
    // page's own work ran, and the promise was answered just outside it. Now the plain question is the second one.
    const page = fakePage();
    const verdict = looksPaused(page.ask, 30);
    await new Promise((r) => setTimeout(r, 20));
    page.step(1);
    await new Promise((r) => setTimeout(r, 20));
    page.step(1);
    expect(await verdict).toBe(false);
  });

  test("a page that answers the plain question but never settles the promise is paused", async () => {
    const page = fakePage({ paused: true });
    const verdict = looksPaused(page.ask, 1000);
    page.step();
    expect(await verdict).toBe(true);
  });

  test("a busy page that answers neither is left to the call's timeout", async () => {
    const page = fakePage({ paused: true });
    expect(await looksPaused(page.ask, 20)).toBe(false);
  });

  test("a page whose context went away (both questions fail) is not paused", async () => {
    const page = fakePage({ contextGone: true });
    const verdict = looksPaused(page.ask, 1000);
    page.step();
    expect(await verdict).toBe(false);
  });
});
