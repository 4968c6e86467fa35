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
import { Attribution, makesHandEvents } from "./attribution.ts";
import { HAND_KINDS, HANDS_GLOBAL, type HandsDrain, type HandsReport } from "../../shared/messages/hands.ts";

const tabs = new Map<number, Attribution>();
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
    if (ownerOfTab(tabId) && of(tabId).reported(msg, performance.now())) void personActed(tabId);
  });
  return false;
}

export function installHands(): void {
  watchCommands((target, method, params) => {
    if (!makesHandEvents(method, params)) return undefined;
    const a = of(target.tabId);
    a.agentSends(method, params);
    return () => {
      // A task later: the action's own read of the page (its effect's settle) reaches the renderer first, and the
      // drain still starts after the answer.
      if (a.agentAnswered()) setTimeout(() => void drain(target.tabId, a), 0);
    };
  });
  browser.runtime.onMessage.addListener(onReport);
  browser.tabs.onRemoved.addListener((tabId) => void tabs.delete(tabId));
}
