/**
 * A tab's renderer crashing (CDP Inspector.targetCrashed; the tab stays open on the browser's error page) fails the
 * tab's calls in flight with cdp_failed, reason renderer_crashed, instead of letting them hang until their deadline,
 * and goes to the session's event stream as tab.crashed. Whether such a call had already acted is not known, so the
 * daemon reports it with effect_state unknown. The tab counts as crashed until it loads again.
 */
import { browser } from "wxt/browser";
import { BskError } from "../../../protocol/errors.ts";
import { onAttach, tapCdp } from "../cdp/debugger.ts";
import { heldBy } from "../cdp/runaway.ts";
import { emit } from "../ports/outbox.ts";
import { ownerOfTab } from "../session/sessions.ts";

const crashed = new Set<number>();
/** What may run on a crashed tab: it can bring the page back. */
const RECOVERS = new Set(["navigate", "reload", "navigate.back", "navigate.forward", "tab.close"]);
const listeners = new Map<number, Set<(err: BskError) => void>>();

function crashError(tabId: number): BskError {
  return new BskError("cdp_failed", `the page in tab ${tabId} crashed`, {
    data: { reason: "renderer_crashed", tab_id: tabId, effect_state: "unknown" },
  });
}

async function onCrash(tabId: number): Promise<void> {
  if (crashed.has(tabId)) return;
  crashed.add(tabId);
  const err = crashError(tabId);
  for (const fn of [...(listeners.get(tabId) ?? [])]) fn(err);
  const owner = ownerOfTab(tabId);
  if (!owner) return;
  const tab = await browser.tabs.get(tabId).catch(() => undefined);
  emit("tab.crashed", { session_id: owner.session.session_id, tab_id: tabId, ...(tab?.url ? { url: tab.url } : {}) });
}

export function installCrashWatch(): void {
  onAttach((_tabId, send) => send("Inspector.enable"));
  // A crashed renderer runs no script: runaway.ts has nothing to stop there.
  heldBy((tabId) => crashed.has(tabId));
  tapCdp({
    onEvent(source, method) {
      if (source.sessionId) return; // an out-of-process iframe's renderer is not the tab's
      if (method === "Inspector.targetCrashed") void onCrash(source.tabId);
      else if (method === "Inspector.targetReloadedAfterCrash" || method === "Page.frameNavigated") crashed.delete(source.tabId);
    },
    onDetach(tabId) {
      crashed.delete(tabId);
    },
  });
}

/**
 * A tab call's signal that also aborts when the tab's renderer crashes; wraps the dialog guard's (same shape).
 * A tab already crashed fails at once, except for what can bring it back (navigate, reload, tab close).
 */
export function crashGuard(tabId: number, inner: { signal: AbortSignal; dispose: () => void }, method?: string) {
  if (crashed.has(tabId) && !RECOVERS.has(method ?? "")) {
    inner.dispose();
    throw crashError(tabId);
  }
  const ac = new AbortController();
  const fn = (err: BskError) => ac.abort(err);
  let set = listeners.get(tabId);
  if (!set) listeners.set(tabId, (set = new Set()));
  set.add(fn);
  return {
    signal: AbortSignal.any([inner.signal, ac.signal]),
    dispose: () => {
      set.delete(fn);
      if (set.size === 0 && listeners.get(tabId) === set) listeners.delete(tabId);
      inner.dispose();
    },
  };
}
