/**
 * A page held in a modal pause: in the headed browser, print() runs the print dialog inside the page's own call, so
 * the page answers a plain evaluation but no promise of it settles (every page call that waits hangs) and input sent
 * to it is dropped, not queued. An input call still waiting on its page after CHECK_MS, having sent nothing, asks the
 * page two trivial questions; a page that answers the plain one and not the other is paused, and the call fails
 * input_not_delivered (effect none) instead of hanging until its timeout. A busy script (neither answered) is left to
 * the timeout and runaway.ts; a slow page that answers both goes on waiting.
 */
import { BskError } from "../../../protocol/errors.ts";
import { sendTo } from "../cdp/debugger.ts";
import { within } from "../cdp/runaway.ts";

const CHECK_MS = 1000;
const ANSWER_MS = 500;

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
  const [plain, settles] = await Promise.all([
    within(sendTo({ tabId }, "Runtime.evaluate", { expression: "0", returnByValue: true }), ANSWER_MS),
    within(sendTo({ tabId }, "Runtime.evaluate", { expression: "Promise.resolve(0)", awaitPromise: true, returnByValue: true }), ANSWER_MS),
  ]);
  return plain && !settles;
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
