/**
 * A page script that never returns (`evaluate 'while(true){}'`, a click handler stuck in a loop, the page's own timer
 * stuck in one) holds the renderer's main thread, so every later call on its tab would queue behind it until the tab
 * closed. When a call ends (timeout, cancel) while one of its CDP commands is still unanswered, or a call on the tab
 * runs out of time whatever it waited for (checkPageAfter), the page is asked a trivial question; no answer within
 * BUSY_MS means its main thread is busy (see silence()), and the running script is stopped: Debugger.pause (which the
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
 * wedge it. The call whose end started a check answers with what the check found (timeoutOnPage), soon after its
 * deadline (BROWSER_TIMEOUT_REPORT_MS): so the question is asked already from shortly before the deadline (watchAhead),
 * which stops nothing, and at the deadline only the pause (taken at once by a busy script) or the discard remains.
 */
import { browser } from "wxt/browser";
import { BROWSER_TIMEOUT_HINT, BskError } from "../../../protocol/errors.ts";
import { errorMessage } from "../shared/abort.ts";
import type { CdpTarget } from "./refs/target.ts";

const BUSY_MS = 1000;
/** A page that answered with an error is asked again after this long. */
const ASK_AGAIN_MS = 50;
/** How long a busy script may take to pause once asked (it takes the interrupt at its next call or loop turn). */
const PAUSE_MS = 1200;
/**
 * How long a busy page a navigation waits on (its questions bounce as "navigated or closed", or a navigation command
 * is unanswered) is asked to pause: such a renderer takes none, so the discard is not kept waiting for the reply.
 */
const NAVIGATING_PAUSE_MS = 200;
/** A page whose question bounced this lately still bounces (it is asked again every ASK_AGAIN_MS). */
const BOUNCED_LATELY_MS = 250;
/** How long turning the Debugger domain over may take (a hung page may never answer). */
const TURN_OVER_MS = 1200;
/**
 * A call's page is asked from this long before its deadline (watchAhead): busy all along, it is known busy then (the
 * margin covers a timer or a first answer that comes late on a loaded machine).
 */
const AHEAD_MS = BUSY_MS + 300;
/** The longest a check can take (its probe, the pause, the turning over of the domain or the discard), and more. */
const CHECK_MAX_MS = BUSY_MS + PAUSE_MS + TURN_OVER_MS + 3000;

/**
 * What a check found: the page answered (not busy); something else than a script holds it (heldBy); a busy script
 * was stopped; the renderer took no pause and its page was discarded (`tabId`: the tab's id since); or none of that
 * worked.
 */
export type PageVerdict = { found: "answered" | "held" | "stopped" | "hung" | "spared" } | { found: "discarded"; tabId: number };

type Send = (target: CdpTarget, method: string, params?: object) => Promise<unknown>;

/** A check running on a target: its verdict, and its end (which may come later: the domain turned over). */
const checking = new Map<string, { verdict: Promise<PageVerdict>; done: Promise<unknown> }>();
/** The checks a call's end started, by the abort reason it ended with (its signal's reason), for its reply. */
const startedBy = new WeakMap<object, { tabId: number; verdict: Promise<PageVerdict> }[]>();
const holds: ((tabId: number) => boolean)[] = [];

/** Something other than a script that holds a tab's page (dialogs.ts: an open JavaScript dialog); never stopped. */
export function heldBy(hold: (tabId: number) => boolean): void {
  holds.push(hold);
}

const held = (tabId: number) => holds.some((hold) => hold(tabId));

const navigations: ((tabId: number) => boolean)[] = [];

/** A navigation command sent to a tab and not answered yet (debugger.ts): if its page is busy, it takes no pause. */
export function navigationWaitsOn(waits: (tabId: number) => boolean): void {
  navigations.push(waits);
}

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
  const key = keyOf(target);
  let pending = checking.get(key);
  if (!pending) {
    // Only a call that ran out of time has the page discarded: never one the person stopped (user_aborted).
    const outOfTime = cause instanceof BskError && cause.code === "timeout";
    // Joined now: a watch the call kept ahead of its deadline (watchAhead) already knows how long the page is silent.
    const run = check(target, send, outOfTime, watch(target, send));
    const done = run.then(({ after }) => after?.()).finally(() => checking.delete(key));
    pending = { verdict: run.then(({ verdict }) => verdict), done };
    checking.set(key, pending);
  }
  const { verdict } = pending;
  if (cause !== null && typeof cause === "object") {
    const started = startedBy.get(cause) ?? [];
    startedBy.set(cause, [...started, { tabId: target.tabId, verdict }]);
  }
  return verdict;
}

const keyOf = (target: CdpTarget) => `${target.tabId}/${target.sessionId ?? ""}`;

/**
 * A check running on `tabId`, settled once it ends (or after CHECK_MAX_MS); undefined when none runs (the usual case:
 * nothing to wait for). A call must not reach a page being checked: once a navigation waits on a page whose own
 * script hangs, the page takes no pause any more.
 */
export function runawayChecked(tabId: number): Promise<boolean> | undefined {
  if (checking.size === 0) return undefined;
  const running = [...checking].filter(([key]) => key.startsWith(`${tabId}/`)).map(([, p]) => p.done);
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
 * A page asked a trivial question again and again, from before a check needs to know whether it answers: the
 * questions of one target are shared by the calls watching it and a check started meanwhile.
 */
interface Watch {
  users: number;
  /** When the first question not answered since was sent; undefined right after an answer. */
  silentSince?: number;
  /** When a question last bounced ("navigated or closed"): a navigation waits on the page. */
  bouncedAt?: number;
  /** Settles at the next answer. */
  answered: PromiseWithResolvers<void>;
}

const watches = new Map<string, Watch>();

/**
 * A call with a deadline has its page asked from AHEAD_MS before it, for as long as the call runs (the returned
 * function ends that), so a check at the deadline knows at once whether the page was busy all along: the only slow
 * part of a check, its probe, is done before the deadline, and asking stops no script. `attached` is asked when the
 * time comes (a tab not attached runs no command of bsk's).
 */
export function watchAhead(target: CdpTarget, send: Send, deadline: number, attached: () => boolean): () => void {
  let leave: (() => void) | undefined;
  const timer = setTimeout(
    () => {
      if (attached()) leave = watch(target, send);
    },
    deadline - AHEAD_MS - Date.now(),
  );
  return () => {
    clearTimeout(timer);
    leave?.();
  };
}

/** Joins or starts the watch of `target`; the returned function leaves it (the last to leave ends it). */
function watch(target: CdpTarget, send: Send): () => void {
  const key = keyOf(target);
  let w = watches.get(key);
  if (w) w.users++;
  else {
    w = { users: 1, answered: Promise.withResolvers<void>() };
    watches.set(key, w);
    void keepAsking(target, send, w);
  }
  const own = w;
  let left = false;
  return () => {
    if (left) return;
    left = true;
    if (--own.users === 0 && watches.get(key) === own) watches.delete(key);
  };
}

/**
 * A page whose own script hangs while a navigation waits on it answers at once that it "navigated or closed": that
 * is no answer, and it is asked again after a breath; any other error is an answer (a tab gone or not attached has no
 * script to stop). A question the page never answers keeps the watch waiting on it.
 */
async function keepAsking(target: CdpTarget, send: Send, w: Watch): Promise<void> {
  while (w.users > 0) {
    w.silentSince ??= Date.now();
    const said = await send(target, "Runtime.evaluate", { expression: "0", returnByValue: true }).then(
      () => "answer" as const,
      (err: unknown) => (/navigated or closed/i.test(errorMessage(err)) ? "again" : "answer"),
    );
    if (said === "again") w.bouncedAt = Date.now();
    else {
      w.silentSince = undefined;
      w.answered.resolve();
      w.answered = Promise.withResolvers<void>();
    }
    if (w.users > 0) await new Promise((resolve) => setTimeout(resolve, ASK_AGAIN_MS));
  }
}

/**
 * Whether the watched page went BUSY_MS without an answer: "navigating" when a navigation waits on it (its questions
 * still bounce, or a navigation command is unanswered), else "busy"; false once it answers. Waits only for what the
 * watch has not seen yet: not at all for a page silent since long enough.
 */
async function silence(target: CdpTarget, w: Watch): Promise<false | "busy" | "navigating"> {
  for (;;) {
    if (w.silentSince === undefined) return false;
    const now = Date.now();
    const left = w.silentSince + BUSY_MS - now;
    if (left > 0) {
      if (await within(w.answered.promise, left)) return false;
      continue;
    }
    const bouncing = w.bouncedAt !== undefined && now - w.bouncedAt < BOUNCED_LATELY_MS;
    const navigating = !target.sessionId && navigations.some((waits) => waits(target.tabId));
    return bouncing || navigating ? "navigating" : "busy";
  }
}

/** A check's verdict, and what must still happen before the tab's next calls reach the page (`after`). */
type Checked = { verdict: PageVerdict; after?: () => Promise<void> };

/** `leave`: the check's place in the target's watch, left once it knows whether the page is busy. */
async function check(target: CdpTarget, send: Send, mayDiscard: boolean, leave: () => void): Promise<Checked> {
  let busy: Awaited<ReturnType<typeof silence>>;
  try {
    if (held(target.tabId)) return { verdict: { found: "held" } };
    busy = await silence(target, watches.get(keyOf(target))!);
  } finally {
    leave();
  }
  if (!busy) return { verdict: { found: "answered" } };
  // A dialog that opened meanwhile holds the page, not a loop: the person's answer frees it.
  if (held(target.tabId)) return { verdict: { found: "held" } };
  const stopped = await terminate(target, send, busy === "navigating" ? NAVIGATING_PAUSE_MS : PAUSE_MS).catch((err: unknown) => {
    console.warn(`bsk: could not stop the script keeping tab ${target.tabId} busy: ${String(err)}`);
    return false;
  });
  if (stopped) {
    console.warn(`bsk: stopped a page script that kept tab ${target.tabId} busy after its call ended`);
    return { verdict: { found: "stopped" } };
  }
  // The person's own page keeps what they had in it (a form half filled): it is left hung, and the reply says so.
  if (mayDiscard && !target.sessionId && keeps.some((keep) => keep(target.tabId))) {
    return { verdict: { found: "spared" }, after: () => turnOver(target, send) };
  }
  // Only the tab's own page is discarded (an out-of-process iframe's renderer is not the tab's).
  const discarded = !mayDiscard || held(target.tabId) || target.sessionId ? undefined : await discard(target.tabId);
  if (discarded !== undefined) {
    console.warn(`bsk: tab ${target.tabId} hung in a script that took no pause; discarded its page (tab ${discarded} now)`);
    return { verdict: { found: "discarded", tabId: discarded }, after: () => blank(discarded) };
  }
  return { verdict: { found: held(target.tabId) ? "held" : "hung" }, after: () => turnOver(target, send) };
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

/** Pauses the busy script and ends it; false when the page took no pause within `ms` (it stays asked: see turnOver). */
async function terminate(target: CdpTarget, send: Send, ms: number): Promise<boolean> {
  const paused = nextEvent(target, "Debugger.paused");
  try {
    // Not awaited on its own: a page that takes no pause may never answer it either.
    send(target, "Debugger.pause").catch(() => undefined);
    if (!(await within(paused.event, ms))) return false;
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
  await within(again(), TURN_OVER_MS);
}

/**
 * The browser ends the hung page's renderer (CDP cannot: it waits on the page): the tab is discarded. Resolves with
 * the tab's id since (a discarded tab may get a new one), undefined when the browser refused.
 */
async function discard(tabId: number): Promise<number | undefined> {
  // Not bounded: the browser answers this without the hung page (a slow answer makes the call's reply say less).
  try {
    const tab = await browser.tabs.discard(tabId);
    return tab?.id ?? tabId;
  } catch (err) {
    console.warn(`bsk: could not discard the hung page of tab ${tabId}: ${errorMessage(err)}`);
    return undefined;
  }
}

/** A discarded tab counts as crashed to the next attachment: it loads about:blank before the tab's next call. */
async function blank(tabId: number): Promise<void> {
  await browser.tabs.update(tabId, { url: "about:blank" }).catch((err: unknown) => {
    console.warn(`bsk: could not load about:blank in discarded tab ${tabId}: ${errorMessage(err)}`);
  });
}

/**
 * Pausing needs the Debugger domain on before the page gets busy (enabling it waits for the main thread). With
 * breakpoints off, the page's own `debugger;` statements never stop it.
 */
export async function enableDebugger(send: (method: string, params?: object) => Promise<unknown>): Promise<void> {
  await send("Debugger.enable");
  await send("Debugger.setBreakpointsActive", { active: false });
}
