/**
 * A page script that never returns (`evaluate 'while(true){}'`, a click handler stuck in a loop) holds the renderer's
 * main thread, so every later call on its tab would queue behind it until the tab closed. When a call ends (timeout,
 * cancel) while one of its CDP commands is still unanswered, the page is asked a trivial question; no answer within
 * BUSY_MS means its main thread is busy, and the running script is stopped: Debugger.pause (which the renderer takes
 * as an interrupt, busy or not), then Debugger.resume with terminateOnResume (Runtime.terminateExecution is not
 * open to extensions). An idle page (a command waiting on a promise, a slow network) is left alone: pausing it would
 * stop whichever script ran next instead.
 */
import { browser } from "wxt/browser";
import type { CdpTarget } from "./refs/target.ts";

const BUSY_MS = 1000;
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

async function check(target: CdpTarget, send: Send): Promise<boolean> {
  if (await within(send(target, "Runtime.evaluate", { expression: "0", returnByValue: true }), BUSY_MS)) return false;
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
    await send(target, "Debugger.pause");
    if (!(await within(paused, PAUSE_MS))) {
      // Not in script after all: the pause would stay armed for the next script, so the domain is turned over.
      await send(target, "Debugger.disable");
      await enableDebugger((method, params) => send(target, method, params));
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
