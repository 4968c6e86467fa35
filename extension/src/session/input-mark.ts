/**
 * What a page-changing call has sent so far, so that a failure says no more than is known: an error before any
 * input (a click, keys, a navigation, a script, a dialog answer, files, a tab moved) is `effect_state: none`; one
 * after is `unknown` unless the handler knows better (`committed`). Every place that dispatches wraps it in
 * `sending()`; the dispatcher fills in the error's effect_state from the mark.
 *
 * A session runs one call at a time (the daemon's session queue), so a session id names its call in flight.
 *
 * Test hook (fault injection, tests/e2e/fault-matrix.test.ts): `chrome.storage.local.bsk_test_fault =
 * { method, stage }` makes the next call of that method fail once at that stage: `before_dispatch` (just
 * before its first input), `after_dispatch` (right after it) or `after_reaction` (after the handler finished).
 * `chrome.storage.local.bsk_test_blind = true` hides browser prompts from bsk (guard/prompt-state.ts records none), so
 * input goes into a tab the browser keeps deaf, as it would under a prompt bsk does not know of
 * (tests/e2e/input-delivery.test.ts). Only bsk's own pages and worker can write storage.local
 * (session/storage-lock.ts); the hooks are not read until that holds.
 */
import { browser } from "wxt/browser";
import { BskError } from "../../../protocol/errors.ts";
import { errorMessage } from "../shared/abort.ts";
import { hopMark } from "../shared/hop-mark.ts";
import { ownerOfTab } from "./sessions.ts";
import { localStorageLocked } from "./storage-lock.ts";

export type FaultStage = "before_dispatch" | "after_dispatch" | "after_reaction";
const FAULT_KEY = "bsk_test_fault";
const BLIND_KEY = "bsk_test_blind";

interface Mark {
  method: string;
  sent: boolean;
  /** Held call (meta.hold): input waits for it; rejects when the call ends first. Cleared once it settles. */
  held?: Promise<void>;
  /** Run right before input goes out; throws when it must not (features/approval/gate.ts recheck). */
  check?: () => Promise<void>;
  /** Resolves when the call ends (its mark closes). */
  ended: Promise<void>;
}

/** The one owner of call marks and the armed fault. */
const state = {
  calls: new Map<string, Mark>(),
  fault: undefined as { method: string; stage: FaultStage } | undefined,
  blind: false,
};

/** Whether the test hook hides browser prompts from bsk. */
export const blindToPrompts = (): boolean => state.blind;

export function installFaultHook(): void {
  // For the test to know the worker holds what it armed (storage.onChanged reaches the worker after set() resolves).
  (globalThis as { bskArmedFault?: () => unknown }).bskArmedFault = () => state.fault ?? (state.blind ? "blind" : null);
  let locked = false;
  browser.storage.onChanged.addListener((changes, area) => {
    if (area !== "local" || !locked) return;
    if (FAULT_KEY in changes) state.fault = (changes[FAULT_KEY]!.newValue as typeof state.fault) ?? undefined;
    if (BLIND_KEY in changes) state.blind = changes[BLIND_KEY]!.newValue === true;
  });
  void localStorageLocked().then(async (ok) => {
    if (!ok) return;
    locked = true;
    const got = await browser.storage.local.get([FAULT_KEY, BLIND_KEY]);
    state.fault = got[FAULT_KEY] as typeof state.fault;
    state.blind = got[BLIND_KEY] === true;
  });
}

/**
 * Opens the mark of a page-changing call; the returned function closes it and says whether input was sent. `held`: the
 * call's input waits for it (the daemon's op.durable, raced with the call's abort).
 */
export function beginMutation(sessionId: string, method: string, held?: Promise<void>): { sent: () => boolean; end: () => void } {
  let close = () => {};
  const ended = new Promise<void>((resolve) => (close = resolve));
  const mark: Mark = { method, sent: false, ended, ...(held && { held }) };
  held?.then(
    () => {
      if (mark.held === held) delete mark.held;
    },
    () => undefined,
  );
  state.calls.set(sessionId, mark);
  return {
    sent: () => mark.sent,
    end: () => {
      if (state.calls.get(sessionId) === mark) state.calls.delete(sessionId);
      close();
    },
  };
}

/** The call in flight of the session must pass `check` each time right before its input goes out. */
export function checkBeforeInput(sessionId: string, check: () => Promise<void>): void {
  const mark = state.calls.get(sessionId);
  if (mark) mark.check = check;
}

type Who = { tabId: number } | { sessionId: string };

function markOf(who: Who): Mark | undefined {
  const sessionId = "sessionId" in who ? who.sessionId : ownerOfTab(who.tabId)?.session.session_id;
  return sessionId === undefined ? undefined : state.calls.get(sessionId);
}

/** When the page-changing call in flight on the tab's session ends; undefined when there is none. */
export function callEnded(tabId: number): Promise<void> | undefined {
  return markOf({ tabId })?.ended;
}

/** Throws the armed fault if it is for this call's method at this stage (once). */
export function faultPoint(mark: { method: string } | undefined, stage: FaultStage): void {
  const f = state.fault;
  if (!f || !mark || f.method !== mark.method || f.stage !== stage) return;
  state.fault = undefined;
  void browser.storage.local.remove(FAULT_KEY).catch(() => undefined);
  throw new BskError("cdp_failed", `injected fault at ${stage} (test hook)`, { data: { reason: "injected_fault", stage } });
}

/**
 * Runs `act`, which delivers input to the page (or changes the browser): from its start the call has an effect. A held
 * call's input waits here until its op is on the daemon's disk; a call cut off meanwhile sends nothing.
 */
export async function sending<T>(who: Who, act: () => Promise<T>): Promise<T> {
  const mark = markOf(who);
  const t0 = performance.now();
  if (mark?.held) {
    await mark.held;
    hopMark("wait op.durable (the daemon's ledger sync)", t0);
  }
  if (mark?.check) await mark.check();
  faultPoint(mark, "before_dispatch");
  if (mark) mark.sent = true;
  const out = await act();
  faultPoint(mark, "after_dispatch");
  return out;
}

/** The error a failed page-changing call answers with: its effect_state as known (a declared one is kept). */
export function withEffectState(err: unknown, sent: boolean): BskError {
  const e = err instanceof BskError ? err : new BskError("cdp_failed", errorMessage(err));
  if (e.data?.effect_state !== undefined) return e;
  return new BskError(e.code, e.message, { hint: e.hint, data: { ...e.data, effect_state: sent ? "unknown" : "none" } });
}
