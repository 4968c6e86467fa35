/**
 * wait_for: the next navigation or a URL (CDP lifecycle events), an element state, or text appearing or going.
 * Element and text waits are event-driven in the page: a promise in bsk's isolated world that a MutationObserver
 * (and transition/animation ends) re-checks, awaited through Runtime with awaitPromise and raced against the call's
 * signal. Each page wait is capped and re-armed, so a change no mutation announces (a media query, :hover) is still
 * seen, and a navigation in between moves the wait to the new document.
 */
import { BskError } from "../../../protocol/errors.ts";
import type { waitMethods } from "../../../protocol/methods/waits.ts";
import { raceAbort } from "../shared/abort.ts";
import { mainFrameId, sendTo, subscribe } from "../cdp/debugger.ts";
import { dropWorld, isGoneError, worldOf } from "../cdp/frames.ts";
import { callOn } from "../cdp/page-call.ts";
import { resolveTarget } from "../cdp/refs/resolve.ts";
import { resolveTab } from "../session/sessions.ts";
import { urlMatcher } from "../shared/urls.ts";
import type { FamilyHandlers } from "../shared/handler.ts";
import { pageState, watching } from "../page/page-state.ts";
import { browser } from "wxt/browser";

/** One page-side wait; then the worker checks again (a new document, a change no mutation reports). */
const PAGE_WAIT_CAP_MS = 2000;
/** After the document went away, wait this long at most for the next one before trying again. */
const NEXT_DOCUMENT_CAP_MS = 1000;

type ElementState = "attached" | "visible" | "hidden" | "detached";

/**
 * Resolves "ok" when `check()` says so, "detached"/other strings as `check()` returns them, or "again" at the cap.
 * Re-checks after DOM mutations and transition/animation ends, at most once per frame. Self-contained (sent as source).
 */
function pageWaiter(check: () => string | null, root: Node, capMs: number): Promise<string> {
  return new Promise((resolve) => {
    const first = check();
    if (first) return resolve(first);
    let queued = false;
    const finish = (v: string) => {
      mo.disconnect();
      clearTimeout(timer);
      removeEventListener("transitionend", recheck, true);
      removeEventListener("animationend", recheck, true);
      resolve(v);
    };
    const run = () => {
      queued = false;
      const v = check();
      if (v) finish(v);
    };
    function recheck() {
      if (queued) return;
      queued = true;
      // rAF does not run in a hidden tab; a task does.
      if (document.visibilityState === "visible") requestAnimationFrame(run);
      else setTimeout(run, 0);
    }
    const mo = new MutationObserver(recheck);
    mo.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    addEventListener("transitionend", recheck, true);
    addEventListener("animationend", recheck, true);
    const timer = setTimeout(() => finish("again"), capMs);
  });
}

function elementStateInPage(this: Element, waiter: typeof pageWaiter, want: ElementState, capMs: number): Promise<string> {
  const visible = () =>
    [...this.getClientRects()].some((r) => r.width > 0 && r.height > 0) && this.checkVisibility({ visibilityProperty: true } as any);
  const check = () => {
    if (!this.isConnected) return "detached";
    if (want === "attached") return "ok";
    if (want === "visible") return visible() ? "ok" : null;
    if (want === "hidden") return visible() ? null : "ok";
    return null;
  };
  return waiter(check, this.ownerDocument, capMs);
}

function textInPage(waiter: typeof pageWaiter, text: string, appear: boolean, capMs: number): Promise<string> {
  const norm = (s: string) => s.replace(/\s+/g, " ");
  const wanted = norm(text).trim();
  const present = () => norm((document.body ?? document.documentElement).innerText ?? "").includes(wanted);
  return waiter(() => (present() === appear ? "ok" : null), document, capMs);
}

function changeInPage(waiter: typeof pageWaiter, capMs: number): Promise<string> {
  let changed = false;
  const mo = new MutationObserver(() => (changed = true));
  mo.observe(document, { subtree: true, childList: true, attributes: true });
  return waiter(
    () => {
      if (!changed) return null;
      mo.disconnect();
      return "ok";
    },
    document,
    capMs,
  );
}

const ELEMENT_FN = `function (want, capMs) {
  return (${elementStateInPage.toString()}).call(this, ${pageWaiter.toString()}, want, capMs).then((v) => JSON.stringify(v));
}`;

/** Runs a page-level wait expression in the main frame's world; "gone" when the document went away meanwhile. */
async function inMainWorld(tabId: number, expression: string, signal: AbortSignal): Promise<string> {
  const world = await worldOf({ tabId }, await mainFrameId(tabId, signal), signal);
  try {
    const r = await sendTo(
      { tabId },
      "Runtime.evaluate",
      { expression, contextId: world.contextId, awaitPromise: true, returnByValue: true },
      signal,
    );
    if (r.exceptionDetails)
      throw new BskError("cdp_failed", `bsk's wait failed in the page: ${r.exceptionDetails.text}`, {
        data: { reason: "page_call_failed" },
      });
    return String(r.result?.value ?? "again");
  } catch (err) {
    if (!isGoneError(err)) throw err;
    dropWorld(world);
    await nextDocument(tabId, signal);
    return "gone";
  }
}

/** Waits (bounded) for the main frame to commit a new document, so a retry does not spin during a navigation. */
async function nextDocument(tabId: number, signal: AbortSignal): Promise<void> {
  let off = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await raceAbort(
      new Promise<void>((resolve) => {
        off = subscribe(tabId, (method, p) => {
          if ((method === "Page.frameNavigated" && !p.frame?.parentId) || method === "Page.domContentEventFired") resolve();
        });
        timer = setTimeout(resolve, NEXT_DOCUMENT_CAP_MS);
      }),
      signal,
    );
  } finally {
    off();
    clearTimeout(timer);
  }
}

async function waitText(tabId: number, text: string, appear: boolean, signal: AbortSignal): Promise<void> {
  const expression = `(${textInPage.toString()})(${pageWaiter.toString()}, ${JSON.stringify(text)}, ${appear}, ${PAGE_WAIT_CAP_MS})`;
  while ((await inMainWorld(tabId, expression, signal)) !== "ok");
}

/** The page changed (a mutation, a new document) or the cap passed. */
async function pageChange(tabId: number, signal: AbortSignal): Promise<void> {
  await inMainWorld(tabId, `(${changeInPage.toString()})(${pageWaiter.toString()}, ${PAGE_WAIT_CAP_MS})`, signal);
}

function absent(err: unknown): "stale" | "missing" | null {
  if (!(err instanceof BskError)) return null;
  if (err.code === "stale_ref") return "stale";
  if (err.code === "not_found" && err.data?.reason === "selector_not_found") return "missing";
  return null;
}

async function waitElement(sessionId: string, tabId: number, target: string, want: ElementState, signal: AbortSignal): Promise<void> {
  for (;;) {
    let rt;
    try {
      rt = await resolveTarget(sessionId, tabId, target, signal);
    } catch (err) {
      const why = absent(err);
      if (!why) throw err;
      if (want === "hidden" || want === "detached") return;
      // A ref whose node is gone never comes back; a selector may match later.
      if (why === "stale") throw err;
      await pageChange(tabId, signal);
      continue;
    }
    let state: string;
    try {
      state = await callOn<string>(rt, ELEMENT_FN, [want, PAGE_WAIT_CAP_MS], signal);
    } catch (err) {
      if (!isGoneError(err)) throw err;
      state = "detached";
    }
    if (state === "ok") return;
    if (state === "detached" && (want === "hidden" || want === "detached")) return;
  }
}

/** The committed document's own account of a milestone, awaited in the page (networkidle counts as load). */
async function documentReached(
  tabId: number,
  milestone: "commit" | "domcontentloaded" | "load" | "networkidle",
  signal: AbortSignal,
): Promise<void> {
  if (milestone === "commit") return;
  const ready = milestone === "domcontentloaded" ? `document.readyState !== "loading"` : `document.readyState === "complete"`;
  const event = milestone === "domcontentloaded" ? "DOMContentLoaded" : "load";
  const expression = `new Promise((resolve) => (${ready}) ? resolve(true) : addEventListener(${JSON.stringify(event)}, () => resolve(true), { once: true }))`;
  await sendTo({ tabId }, "Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, signal).catch((err: unknown) => {
    // The document went away meanwhile (another navigation): it is not where the wait ends.
    if (!isGoneError(err)) throw err;
  });
}

async function waitNavigation(
  tabId: number,
  p: { navigation: boolean; url?: string; wait_until: "commit" | "domcontentloaded" | "load" | "networkidle" },
  signal: AbortSignal,
) {
  await watching(tabId, signal, async (watch) => {
    if (p.url === undefined) return watch.until(p.wait_until, signal);
    const matches = urlMatcher(p.url);
    // --url alone is satisfied by the page as it is; with --navigation it must be a new one. The committed
    // document is read from the page after the watch began: a commit later than that reaches the watch, and a
    // navigation still on its way (the tab's pendingUrl) has not reached its URL yet.
    if (!p.navigation) {
      const { frameTree } = await sendTo<{ frameTree: { frame: { url: string; urlFragment?: string } } }>(
        { tabId },
        "Page.getFrameTree",
        {},
        signal,
      );
      if (matches(frameTree.frame.url + (frameTree.frame.urlFragment ?? ""))) {
        // Its milestones may have passed before the watch began: the document itself says how far it is.
        if ((await browser.tabs.get(tabId)).pendingUrl === undefined) await documentReached(tabId, p.wait_until, signal);
        return;
      }
    }
    await watch.untilUrl(matches, p.wait_until, signal);
  });
}

export const waitHandlers: FamilyHandlers<typeof waitMethods> = {
  wait_for: async (p, { signal }) => {
    const started = performance.now();
    const { tabId } = await resolveTab(p);
    let matched: "navigation" | "url" | "element" | "text" | "text_gone" = "navigation";
    // Every condition given must hold; they are awaited in this order.
    if (p.navigation || p.url !== undefined) {
      await waitNavigation(tabId, p, signal);
      matched = p.url !== undefined ? "url" : "navigation";
    }
    if (p.target !== undefined) {
      await waitElement(p.session_id, tabId, p.target, p.state, signal);
      matched = "element";
    }
    if (p.text !== undefined) {
      await waitText(tabId, p.text, true, signal);
      matched = "text";
    }
    if (p.text_gone !== undefined) {
      await waitText(tabId, p.text_gone, false, signal);
      matched = "text_gone";
    }
    const state = await pageState(tabId, signal);
    return { tab_id: tabId, url: state.url, title: state.title, matched, waited_ms: Math.round(performance.now() - started) };
  },
};
