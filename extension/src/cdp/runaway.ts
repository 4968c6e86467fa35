/**
 * A page script that never returns (`evaluate 'while(true){}'`, a click handler stuck in a loop, the page's own timer
 * stuck in one) holds the renderer's main thread, so every later call on its tab would queue behind it until the tab
 * closed. When a call ends (timeout, cancel) while one of its CDP commands is still unanswered, or a call on the tab
 * runs out of time whatever it waited for (checkPageAfter), the page is asked a trivial question; no answer within
 * BUSY_MS means its main thread is busy (see answers()), and the running script is stopped: Debugger.pause (which the
 * renderer takes as an interrupt, busy or not), then Debugger.resume with terminateOnResume (Runtime.terminateExecution
 * is not open to extensions). A renderer that takes no pause (a navigation already waits on the hung page: CDP reaches
 * neither page then, and Page.crash refuses) is ended by the browser instead, when a call ran out of time (never when
 * the person stopped it): the tab is discarded (which may give it
 * a new id: ownership.ts follows, tab.replaced tells the session) and loads about:blank, so the next navigate runs in
 * a new renderer. An idle page (a command waiting on a promise, a slow network) is left alone: pausing it would stop
 * whichever script ran next instead. So is a page held by something else (heldBy: an open JavaScript dialog, a
 * crashed renderer): the person's answer frees it, and a call on it fails at once.
 *
 * The tab's next calls wait for a check running on it (runawayChecked): a navigation sent to the hung page would
 * wedge it. The call whose end started a check answers with what the check found (timeoutOnPage).
 */
import { browser } from "wxt/browser";
import { BROWSER_TIMEOUT_HINT, BskError } from "../../../protocol/errors.ts";
import { errorMessage } from "../shared/abort.ts";
import type { CdpTarget } from "./refs/target.ts";

const BUSY_MS = 1000;
/** A page that answered with an error is asked again after this long. */
const ASK_AGAIN_MS = 50;
/** How long a busy page may take to pause once asked. */
const PAUSE_MS = 1200;
/** The longest a check can take (its probe, the pause, the turning over of the domain or the discard), and more. */
const CHECK_MAX_MS = BUSY_MS + 2 * PAUSE_MS + 3000;

/**
 * What a check found: the page answered (not busy); something else than a script holds it (heldBy); a busy script
 * was stopped; the renderer took no pause and its page was discarded (`tabId`: the tab's id since); or none of that
 * worked.
 */
export type PageVerdict = { found: "answered" | "held" | "stopped" | "hung" | "spared" } | { found: "discarded"; tabId: number };

type Send = (target: CdpTarget, method: string, params?: object) => Promise<unknown>;

const checking = new Map<string, Promise<PageVerdict>>();
/** The checks a call's end started, by the abort reason it ended with (its signal's reason), for its reply. */
const startedBy = new WeakMap<object, { tabId: number; verdict: Promise<PageVerdict> }[]>();
const holds: ((tabId: number) => boolean)[] = [];

/** Something other than a script that holds a tab's page (dialogs.ts: an open JavaScript dialog); never stopped. */
export function heldBy(hold: (tabId: number) => boolean): void {
  holds.push(hold);
}

const held = (tabId: number) => holds.some((hold) => hold(tabId));

const keeps: ((tabId: number) => boolean)[] = [];

/** A page that is the person's (a borrowed tab: ownership.ts): bsk may stop a script in it, never discard it. */
export function sparedFromDiscard(keep: (tabId: number) => boolean): void {
  keeps.push(keep);
}

/**
 * Resolves with what the check found. Concurrent calls for one target share the check; `cause` (the abort reason of
 * the call that ended) lets that call's reply say what became of the page (timeoutOnPage).
 */
export function stopRunawayScript(target: CdpTarget, send: Send, cause?: unknown): Promise<PageVerdict> {
  const key = `${target.tabId}/${target.sessionId ?? ""}`;
  let pending = checking.get(key);
  if (!pending) {
    // Only a call that ran out of time has the page discarded: never one the person stopped (user_aborted).
    const outOfTime = cause instanceof BskError && cause.code === "timeout";
    pending = check(target, send, outOfTime).finally(() => checking.delete(key));
    checking.set(key, pending);
  }
  if (cause !== null && typeof cause === "object") {
    const started = startedBy.get(cause) ?? [];
    startedBy.set(cause, [...started, { tabId: target.tabId, verdict: pending }]);
  }
  return pending;
}

/**
 * A check running on `tabId`, settled once it ends (or after CHECK_MAX_MS); undefined when none runs (the usual case:
 * nothing to wait for). A call must not reach a page being checked: once a navigation waits on a page whose own
 * script hangs, the page takes no pause any more.
 */
export function runawayChecked(tabId: number): Promise<boolean> | undefined {
  if (checking.size === 0) return undefined;
  const running = [...checking].filter(([key]) => key.startsWith(`${tabId}/`)).map(([, p]) => p);
  return running.length ? within(Promise.all(running), CHECK_MAX_MS) : undefined;
}

const FOUND = {
  stopped: { reason: "page_script_stopped", what: "a page script kept the tab busy; bsk stopped it" },
  discarded: {
    reason: "hung_page_discarded",
    what: "the page hung in a script that took no pause; bsk discarded it (the tab shows about:blank)",
  },
  hung: { reason: "page_hung", what: "the page hung in a script that bsk could not stop" },
  spared: {
    reason: "borrowed_page_hung",
    what: "the person's page (a borrowed tab) hung in its own script; bsk left it as it is, as it is theirs",
  },
} as const;

/**
 * The call that ended with `timedOut` (its own deadline) answers with what the checks its end started found, waiting
 * for them at most `ms`: data.reason (page_script_stopped, hung_page_discarded with new_tab_id, page_hung) and its
 * hint say what happened to the page and what bsk did. A page that answered, or no check, leaves `timedOut` as it is;
 * a check still running says only what bsk does (BROWSER_TIMEOUT_HINT).
 */
export async function timeoutOnPage(timedOut: BskError, ms: number): Promise<BskError> {
  const started = startedBy.get(timedOut);
  if (!started?.length) return timedOut;
  const verdicts = await Promise.all(started.map(({ verdict }) => settledWithin(verdict, ms)));
  const at = (["hung", "spared", "discarded", "stopped"] as const)
    .map((f) => verdicts.findIndex((v) => v?.found === f))
    .find((i) => i >= 0);
  const verdict = at === undefined ? undefined : verdicts[at];
  if (at === undefined || !verdict || !(verdict.found in FOUND)) {
    if (!verdicts.includes(undefined)) return timedOut;
    return new BskError("timeout", timedOut.message, { hint: BROWSER_TIMEOUT_HINT, ...(timedOut.data && { data: timedOut.data }) });
  }
  const found = FOUND[verdict.found as keyof typeof FOUND];
  const tabId = started[at]!.tabId;
  const newTabId = verdict.found === "discarded" && verdict.tabId !== tabId ? verdict.tabId : undefined;
  return new BskError("timeout", `${timedOut.message}: ${found.what} (tab ${tabId}${newTabId ? `, now tab ${newTabId}` : ""})`, {
    data: { ...timedOut.data, reason: found.reason, tab_id: tabId, ...(newTabId && { new_tab_id: newTabId }) },
  });
}

async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves true when `promise` settles within `ms`, false otherwise. */
export async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = promise.then(
    () => true,
    () => true, // an error is an answer too
  );
  return (await settledWithin(settled, ms)) ?? false;
}

/**
 * Does the page answer a trivial question within `ms`? A page whose own script hangs while a navigation waits on it
 * answers at once that it "navigated or closed", so that is asked again (after a breath) until the time is up; any
 * other error is an answer (a tab gone or not attached has no script to stop).
 */
async function answers(target: CdpTarget, send: Send, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (let left = ms; left > 0; left = deadline - Date.now()) {
    const asked = send(target, "Runtime.evaluate", { expression: "0", returnByValue: true }).then(
      () => "answer" as const,
      (err: unknown) => (/navigated or closed/i.test(errorMessage(err)) ? "again" : "answer"),
    );
    const said = await settledWithin(asked, left);
    if (said !== "again") return said === "answer";
    await new Promise((resolve) => setTimeout(resolve, Math.min(ASK_AGAIN_MS, Math.max(0, deadline - Date.now()))));
  }
  return false;
}

async function check(target: CdpTarget, send: Send, mayDiscard: boolean): Promise<PageVerdict> {
  if (held(target.tabId)) return { found: "held" };
  if (await answers(target, send, BUSY_MS)) return { found: "answered" };
  // A dialog that opened meanwhile holds the page, not a loop: the person's answer frees it.
  if (held(target.tabId)) return { found: "held" };
  const stopped = await terminate(target, send).catch((err: unknown) => {
    console.warn(`bsk: could not stop the script keeping tab ${target.tabId} busy: ${String(err)}`);
    return false;
  });
  if (stopped) {
    console.warn(`bsk: stopped a page script that kept tab ${target.tabId} busy after its call ended`);
    return { found: "stopped" };
  }
  // The person's own page keeps what they had in it (a form half filled): it is left hung, and the reply says so.
  if (mayDiscard && !target.sessionId && keeps.some((keep) => keep(target.tabId))) {
    await turnOver(target, send);
    return { found: "spared" };
  }
  // Only the tab's own page is discarded (an out-of-process iframe's renderer is not the tab's).
  const discarded = !mayDiscard || held(target.tabId) || target.sessionId ? undefined : await discard(target.tabId);
  if (discarded !== undefined) {
    console.warn(`bsk: tab ${target.tabId} hung in a script that took no pause; discarded its page (tab ${discarded} now)`);
    return { found: "discarded", tabId: discarded };
  }
  await turnOver(target, send);
  return { found: held(target.tabId) ? "held" : "hung" };
}

/** The next `method` event of `target`'s own session; `dispose` stops listening. */
function nextEvent(target: CdpTarget, method: string): { event: Promise<void>; dispose: () => void } {
  const { promise, resolve } = Promise.withResolvers<void>();
  const onEvent = (source: { tabId?: number; sessionId?: string }, m: string) => {
    if (m === method && source.tabId === target.tabId && source.sessionId === target.sessionId) resolve();
  };
  browser.debugger.onEvent.addListener(onEvent);
  return { event: promise, dispose: () => browser.debugger.onEvent.removeListener(onEvent) };
}

/** Pauses the busy script and ends it; false when the page took no pause (it stays asked: see turnOver). */
/** Pauses the busy script and ends it; false when the page took no pause (it stays asked: see turnOver). */
async function terminate(target: CdpTarget, send: Send): Promise<boolean> {
  const paused = nextEvent(target, "Debugger.paused");
  try {
    // Not awaited on its own: a page that takes no pause may never answer it either.
    send(target, "Debugger.pause").catch(() => undefined);
    if (!(await within(paused.event, PAUSE_MS))) return false;
    await send(target, "Debugger.resume", { terminateOnResume: true });
    return true;
  } finally {
    paused.dispose();
  }
}

/** A pause not taken stays armed for the page's next script, so the domain is turned over (bounded: a hung page may never answer). */
async function turnOver(target: CdpTarget, send: Send): Promise<void> {
  const again = async () => {
    await send(target, "Debugger.disable");
    await enableDebugger((method, params) => send(target, method, params));
  };
  await within(again(), PAUSE_MS);
}

/**
 * The browser ends the hung page's renderer (CDP cannot: it waits on the page): the tab is discarded, then loads
 * about:blank, as a discarded tab counts as crashed to the next attachment. Resolves with the tab's id since (a
 * discarded tab may get a new one), undefined when the browser refused.
 */
async function discard(tabId: number): Promise<number | undefined> {
  // Not bounded: the browser answers these without the hung page (a slow answer makes the call's reply say less).
  try {
    const tab = await browser.tabs.discard(tabId);
    const id = tab?.id ?? tabId;
    await browser.tabs.update(id, { url: "about:blank" });
    return id;
  } catch (err) {
    console.warn(`bsk: could not discard the hung page of tab ${tabId}: ${errorMessage(err)}`);
    return undefined;
  }
}

/**
 * Pausing needs the Debugger domain on before the page gets busy (enabling it waits for the main thread). With
 * breakpoints off, the page's own `debugger;` statements never stop it.
 */
export async function enableDebugger(send: (method: string, params?: object) => Promise<unknown>): Promise<void> {
  await send("Debugger.enable");
  await send("Debugger.setBreakpointsActive", { active: false });
}
