/**
 * A page script that never returns (`evaluate 'while(true){}'`, a click handler stuck in a loop) holds the renderer's
 * main thread, so every later call on its tab would queue behind it until the tab closed. When a call ends (timeout,
 * cancel) while one of its CDP commands is still unanswered, the page is asked a trivial question; no answer within
 * BUSY_MS (an error is no answer: see answers()) means its main thread is busy, and the running script is stopped:
 * Debugger.pause (which the renderer takes as an interrupt, busy or not), then Debugger.resume with terminateOnResume
 * (Runtime.terminateExecution is not open to extensions). The script may be the page's own (a timer stuck in a loop)
 * as well as the agent's. An idle page (a command waiting on a promise, a slow network) is left alone: pausing it
 * would stop whichever script ran next instead. The tab's next calls wait for the check (runawayChecked).
 */
import { browser } from "wxt/browser";
import type { CdpTarget } from "./refs/target.ts";

const BUSY_MS = 1000;
/** A page that answered with an error is asked again after this long. */
const ASK_AGAIN_MS = 50;
/** How long a busy page may take to pause once asked. */
const PAUSE_MS = 5000;

type Send = (target: CdpTarget, method: string, params?: object) => Promise<unknown>;

const checking = new Map<string, Promise<boolean>>();

/** Resolves true when a busy script was found and stopped. Concurrent calls for one target share the check. */
export function stopRunawayScript(target: CdpTarget, send: Send): Promise<boolean> {
  const key = `${target.tabId}/${target.sessionId ?? ""}`;
  let pending = checking.get(key);
  if (!pending) {
    pending = check(target, send).finally(() => checking.delete(key));
    checking.set(key, pending);
  }
  return pending;
}

/** The longest a check can take (its probe, the pause and the turning over of the domain), and a little more. */
const CHECK_MAX_MS = BUSY_MS + 2 * PAUSE_MS + 1000;

/**
 * Waits (at most CHECK_MAX_MS) for a check running on `tabId`. A call must not reach a page being checked: once a
 * navigation waits on a page whose own script hangs, the page takes no pause any more, and the tab stays wedged.
 */
export async function runawayChecked(tabId: number): Promise<void> {
  const running = [...checking].filter(([key]) => key.startsWith(`${tabId}/`)).map(([, p]) => p);
  if (running.length) await within(Promise.all(running), CHECK_MAX_MS);
}

/** Resolves true when `promise` settles within `ms`, false otherwise. */
export async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = promise.then(
    () => true,
    () => true, // an error is an answer too
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Does the page answer a trivial question within `ms`? Only a value counts: a page whose own script hangs while a
 * navigation waits on it answers with an error at once ("Inspected target navigated or closed"), so an error is
 * asked again (after a breath) until the time is up.
 */
async function answers(target: CdpTarget, send: Send, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (let left = ms; left > 0; left = deadline - Date.now()) {
    const asked = send(target, "Runtime.evaluate", { expression: "0", returnByValue: true }).then(
      () => "value" as const,
      () => "error" as const,
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), left)));
    const said = await Promise.race([asked, late]).finally(() => clearTimeout(timer));
    if (said !== "error") return said === "value";
    await new Promise((resolve) => setTimeout(resolve, Math.min(ASK_AGAIN_MS, Math.max(0, deadline - Date.now()))));
  }
  return false;
}

async function check(target: CdpTarget, send: Send): Promise<boolean> {
  if (await answers(target, send, BUSY_MS)) return false;
  const stopped = await terminate(target, send).catch((err: unknown) => {
    console.warn(`bsk: could not stop the script keeping tab ${target.tabId} busy: ${String(err)}`);
    return false;
  });
  if (stopped) console.warn(`bsk: stopped a page script that kept tab ${target.tabId} busy after its call ended`);
  return stopped;
}

async function terminate(target: CdpTarget, send: Send): Promise<boolean> {
  const { promise: paused, resolve } = Promise.withResolvers<void>();
  const onEvent = (source: { tabId?: number; sessionId?: string }, method: string) => {
    if (method === "Debugger.paused" && source.tabId === target.tabId && source.sessionId === target.sessionId) resolve();
  };
  browser.debugger.onEvent.addListener(onEvent);
  try {
    // Not awaited on its own: a page that takes no pause may never answer it either.
    const asked = send(target, "Debugger.pause");
    asked.catch(() => undefined);
    if (!(await within(paused, PAUSE_MS))) {
      // Not in script after all: the pause would stay armed for the next script, so the domain is turned over.
      const turnOver = async () => {
        await send(target, "Debugger.disable");
        await enableDebugger((method, params) => send(target, method, params));
      };
      await within(turnOver(), PAUSE_MS);
      return false;
    }
    await send(target, "Debugger.resume", { terminateOnResume: true });
    return true;
  } finally {
    browser.debugger.onEvent.removeListener(onEvent);
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
