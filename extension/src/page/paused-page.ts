/**
 * A page held in a modal pause: in the headed browser, print() runs the print dialog inside the page's own call, so
 * the page answers a plain evaluation but no promise of it settles (every page call that waits hangs) and input sent
 * to it is dropped, not queued. An input call still waiting on its page after CHECK_MS, having sent nothing, asks the
 * page two trivial questions, and the call fails input_not_delivered (effect none) instead of hanging until its
 * timeout when the page is paused. A busy script (neither answered) is left to the timeout and runaway.ts; a slow page
 * that answers both goes on waiting.
 *
 * The verdict rests on the order of the replies, never on a shared deadline: the promise question is sent first and
 * the plain one right behind it. The target runs them in that order and replies on one channel, and a page that is
 * not paused settles the resolved promise before it takes the next command. So a plain answer that arrives while the
 * promise is still unanswered means the page evaluated the promise and could not settle it. (A page busy in bursts,
 * such as one decoding an upload's chunks, once answered a plain question just inside the deadline and the promise
 * just outside it, and a healthy page was called paused.)
 */
import { BskError } from "../../../protocol/errors.ts";
import { sendTo } from "../cdp/debugger.ts";
import { within } from "../cdp/runaway.ts";

const CHECK_MS = 1000;
const ANSWER_MS = 500;
const TURN_MS = 50;

export function pausedPageGuard(
  tabId: number,
  inner: { signal: AbortSignal; dispose: () => void },
  sent: () => boolean,
): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const signal = AbortSignal.any([inner.signal, ac.signal]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = async () => {
    if (signal.aborted || sent()) return;
    if ((await isPaused(tabId)) && !sent() && !signal.aborted) ac.abort(pagePaused(tabId));
    else if (!signal.aborted && !sent()) timer = setTimeout(check, CHECK_MS);
  };
  timer = setTimeout(check, CHECK_MS);
  return {
    signal,
    dispose: () => {
      clearTimeout(timer);
      inner.dispose();
    },
  };
}

async function isPaused(tabId: number): Promise<boolean> {
  // No call signal: an unanswered probe must not count as the call's own command left running (runaway.ts).
  return looksPaused((expression, awaitPromise) =>
    sendTo({ tabId }, "Runtime.evaluate", { expression, awaitPromise, returnByValue: true }),
  );
}

/** The verdict, given a way to evaluate in the page (exported for its unit test). */
export async function looksPaused(
  ask: (expression: string, awaitPromise: boolean) => Promise<unknown>,
  answerMs = ANSWER_MS,
): Promise<boolean> {
  let settled = false;
  const settles = ask("Promise.resolve(0)", true).then(
    () => void (settled = true),
    () => void (settled = true), // an error is an answer too
  );
  if (!(await within(ask("0", false), answerMs))) return false;
  if (settled) return false;
  // The promise's reply, had it come first, may still be a few microtasks from `settled`: one more turn for it.
  await within(settles, TURN_MS);
  return !settled;
}

function pagePaused(tabId: number): BskError {
  return new BskError(
    "input_not_delivered",
    `the page in tab ${tabId} is held by the browser (a dialog such as printing runs in it) and takes no input; nothing was sent`,
    {
      data: { tab_id: tabId, effect_state: "none", reason: "page_paused" },
    },
  );
}
