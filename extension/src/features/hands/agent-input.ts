/**
 * The person's hands win: their own click, key press, touch, drag or edit in a session's tab takes the session over,
 * exactly as the pill's Take over does (control.ts), unless a help request is open in that tab (then their input is
 * what was asked for) or the person turned "Take over when I use an agent tab" off in the popup. The agent's own
 * input never does: attribution.ts explains how the two are told apart. Reports come from the hands content script
 * (entrypoints/hands.ts); the agent's input is seen where every CDP command goes out (cdp/debugger.ts watchCommands).
 */
import { browser, type Browser } from "wxt/browser";
import { watchCommands } from "../../cdp/debugger.ts";
import { controlReady, isTakenOver, takeOver } from "../control.ts";
import { hasHelp } from "../help/registry.ts";
import { ownerOfTab, sessionsReady } from "../../session/sessions.ts";
import { readSwitches } from "../../session/settings.ts";
import { callEnded } from "../../session/input-mark.ts";
import { Attribution, makesHandEvents } from "./attribution.ts";
import { HAND_KINDS, HANDS_GLOBAL, type HandsDrain, type HandsReport } from "../../shared/messages/hands.ts";

const tabs = new Map<number, Attribution>();
/** Tabs whose call still runs and owes a drain when it ends: one drain after a call covers all of its input. */
const owed = new Set<number>();
/** Per tab, the drain running, and whether another must start once it ends (asked for after it started). */
const draining = new Map<number, { again: boolean }>();
/**
 * This worker's start: what the pages noted before it is another worker's to judge (attribution.ts). On the same basis
 * as the pages' event times (a time origin plus the monotonic clock), not `Date.now()`.
 */
const WORKER_BORN = performance.timeOrigin;

function of(tabId: number): Attribution {
  let a = tabs.get(tabId);
  if (!a) tabs.set(tabId, (a = new Attribution(WORKER_BORN)));
  return a;
}

/** Runs in every frame's content-script world (self-contained: executeScript serializes it). */
function drainInPage(known: Record<string, number>, name: string): HandsDrain | null {
  const hands = (globalThis as Record<string, any>)[name];
  return hands ? (hands.drain(known) as HandsDrain) : null;
}

async function drain(tabId: number, a: Attribution): Promise<void> {
  const gen = a.generation;
  try {
    const results = await browser.scripting.executeScript({
      target: { tabId, allFrames: true },
      world: "ISOLATED",
      func: drainInPage,
      args: [a.known(), HANDS_GLOBAL],
    });
    const frames = results
      .map((r) => r.result as HandsDrain | null | undefined)
      .filter((r): r is HandsDrain => !!r && Array.isArray(r.events));
    if (a.drained(frames, gen, performance.now())) await personActed(tabId);
  } catch {
    a.drainFailed(gen, performance.now());
  }
}

/**
 * A drain that starts after now: a task later (a call's reply goes out first), one at a time per tab. Asked for while
 * one runs, another starts when it ends: the running one may have started before what asked for it.
 */
function requestDrain(tabId: number, a: Attribution): void {
  const running = draining.get(tabId);
  if (running) {
    running.again = true;
    return;
  }
  const run = { again: false };
  draining.set(tabId, run);
  setTimeout(async () => {
    await drain(tabId, a);
    draining.delete(tabId);
    if (run.again) requestDrain(tabId, a);
  }, 0);
}

async function personActed(tabId: number): Promise<void> {
  await Promise.all([sessionsReady(), controlReady()]);
  const owned = ownerOfTab(tabId);
  if (!owned) return;
  const sessionId = owned.session.session_id;
  if (isTakenOver(sessionId) || hasHelp(tabId)) return;
  if (!(await readSwitches()).auto_takeover) return;
  await takeOver(sessionId, tabId, "input");
}

const KINDS = new Set<string>(HAND_KINDS);

function validReport(msg: unknown): msg is HandsReport {
  const m = msg as Partial<HandsReport> | null;
  return (
    !!m &&
    m.type === "hands.input" &&
    typeof m.doc === "string" &&
    m.doc.length <= 32 &&
    Number.isSafeInteger(m.seq) &&
    m.seq! > 0 &&
    (m.at === undefined || Number.isFinite(m.at)) &&
    KINDS.has(m.kind!)
  );
}

function onReport(msg: unknown, sender: Browser.runtime.MessageSender): false {
  const tabId = sender.tab?.id;
  if (sender.id !== browser.runtime.id || tabId === undefined || !validReport(msg)) return false;
  void sessionsReady().then(() => {
    if (!ownerOfTab(tabId)) return;
    const a = of(tabId);
    if (a.reported(msg, performance.now())) void personActed(tabId);
    // In the window of a call still running, the drain decides, and waits for the call's end unless asked now.
    else if (a.agentActing && owed.has(tabId)) requestDrain(tabId, a);
  });
  return false;
}

export function installHands(): void {
  watchCommands((target, method, params) => {
    if (!makesHandEvents(method, params)) return undefined;
    const a = of(target.tabId);
    a.agentSends(method, params);
    return () => {
      if (!a.agentAnswered()) return;
      const tabId = target.tabId;
      // Not while the call that sent it still runs: its own reads of the page (its effect's settle, a key binding's
      // focus check before each character) would wait behind a drain in every frame, once per batch of keys. The
      // window stays open until the call ends, and the drain then still starts after the last answer, so it decides
      // every event of the window. A person's press or key meanwhile is told at once: a report in an open window
      // drains then (onReport).
      const ended = callEnded(tabId);
      if (!ended) return requestDrain(tabId, a);
      if (owed.has(tabId)) return;
      owed.add(tabId);
      void ended.then(() => {
        owed.delete(tabId);
        requestDrain(tabId, a);
      });
    };
  });
  browser.runtime.onMessage.addListener(onReport);
  browser.tabs.onRemoved.addListener((tabId) => void tabs.delete(tabId));
}
