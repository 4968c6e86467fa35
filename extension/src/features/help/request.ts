/**
 * request_help: the "Allow help requests" switch first (off → `disabled` at once, nothing shown), then the
 * criteria's selectors are checked in the page, the targets resolved and marked for the overlay to highlight, the
 * tab and its window brought to the front, and the request waits in the registry for its outcome.
 */
import { browser } from "wxt/browser";
import type { ParsedParams, Result } from "../../../../protocol/catalog.ts";
import { BskError } from "../../../../protocol/errors.ts";
import { mainFrameId, sendTo } from "../../cdp/debugger.ts";
import { dropWorld, frameTarget, isGoneError, listFrames, worldOf } from "../../cdp/frames.ts";
import { clearPrompt } from "../../page/prompt-state.ts";
import { letPersonAnswer } from "../guard/prompts.ts";
import { HELP_TARGET_ATTR } from "../../shared/messages/overlay.ts";
import { emit } from "../../ports/outbox.ts";
import { callOn } from "../../cdp/page-call.ts";
import { resolveTarget } from "../../cdp/refs/resolve.ts";
import { resolveTab } from "../../session/sessions.ts";
import { readSwitches } from "../../session/settings.ts";
import { pageState } from "../../page/page-state.ts";
import { noteFrameGone } from "./note-frame.ts";
import { waitForPerson } from "./registry.ts";

type Found = Result<"request_help">["targets"][number];

/** `this` = the target: marks it for the overlay; the first one is scrolled into view. */
const MARK_FN = `function (attr, id, scroll) {
  this.setAttribute(attr, id);
  if (scroll) this.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  return "true";
}`;

/**
 * Runs `expression` in bsk's isolated world of a frame (the main frame when none is named), in whichever session holds
 * the frame now; null when the document or the frame went away meanwhile.
 */
async function inWorld(tabId: number, expression: string, signal: AbortSignal, frameId?: string): Promise<unknown> {
  const target = frameId === undefined ? { tabId } : await frameTarget(tabId, frameId, signal);
  if (!target) return null;
  const world = await worldOf(target, frameId ?? (await mainFrameId(tabId, signal)), signal);
  try {
    const r = await sendTo(target, "Runtime.evaluate", { expression, contextId: world.contextId, returnByValue: true }, signal);
    return r.result?.value;
  } catch (err) {
    if (!isGoneError(err)) throw err;
    dropWorld(world);
    return null;
  }
}

/** A selector the page cannot parse would make the criteria fail forever: refuse it now. */
async function checkSelectors(tabId: number, selectors: string[], signal: AbortSignal): Promise<void> {
  if (selectors.length === 0) return;
  const bad = await inWorld(
    tabId,
    `(${JSON.stringify(selectors)}).find((s) => { try { document.createDocumentFragment().querySelector(s); return false; } catch { return true; } }) ?? null`,
    signal,
  );
  if (typeof bad === "string") {
    throw new BskError("invalid_params", `request_help: until: ${JSON.stringify(bad)} is not a valid CSS selector`, {
      data: { reason: "invalid_criteria", selector: bad },
    });
  }
}

/**
 * The overlay lives in the top document and highlights what it can see there: a target inside an iframe is shown
 * by the iframe element of the top document that holds it (however deeply nested). False when it cannot be found.
 */
async function markFrameOwner(
  tabId: number,
  frameId: string,
  main: string,
  id: string,
  scroll: boolean,
  signal: AbortSignal,
): Promise<boolean> {
  const frames = await listFrames(tabId, signal);
  let f = frames.find((x) => x.frameId === frameId);
  while (f && f.parentId !== main) f = frames.find((x) => x.frameId === f!.parentId);
  if (!f) return false;
  const { backendNodeId } = await sendTo<{ backendNodeId: number }>({ tabId }, "DOM.getFrameOwner", { frameId: f.frameId }, signal);
  const world = await worldOf({ tabId }, main, signal);
  const { object } = await sendTo<{ object: { objectId: string } }>(
    { tabId },
    "DOM.resolveNode",
    { backendNodeId, executionContextId: world.contextId },
    signal,
  );
  await sendTo(
    { tabId },
    "Runtime.callFunctionOn",
    { objectId: object.objectId, functionDeclaration: MARK_FN, arguments: [{ value: HELP_TARGET_ATTR }, { value: id }, { value: scroll }] },
    signal,
  );
  return true;
}

async function markTargets(
  sessionId: string,
  tabId: number,
  targets: string[],
  id: string,
  signal: AbortSignal,
): Promise<{ found: Found[]; marked: number; inFrames: Set<string> }> {
  const found: Found[] = [];
  /** The ids of the frames (other than the main one) holding a marked target. */
  const inFrames = new Set<string>();
  let marked = 0;
  const main = targets.length ? await mainFrameId(tabId, signal) : "";
  for (const target of targets) {
    try {
      const rt = await resolveTarget(sessionId, tabId, target, signal);
      const first = found.every((f) => !f.found);
      await callOn(rt, MARK_FN, [HELP_TARGET_ATTR, id, first], signal);
      if (rt.frameId === main) marked++;
      else {
        inFrames.add(rt.frameId);
        if (await markFrameOwner(tabId, rt.frameId, main, id, first, signal).catch(() => false)) marked++;
      }
      found.push({ target, found: true, role: rt.role, name: rt.name });
    } catch (err) {
      if (signal.aborted || !(err instanceof BskError)) throw err;
      found.push({ target, found: false, error: err.code === "not_found" ? (err.data?.reason ?? err.code) : err.code });
    }
  }
  return { found, marked, inFrames };
}

/**
 * Takes the request's marks off the main frame's document and those of the frames holding targets (the mark scrolled
 * them into view there), each frame found by its id: the session that marked it may have been renewed since.
 */
async function unmark(tabId: number, id: string, frameIds: Iterable<string>): Promise<void> {
  const expression = `document.querySelectorAll('[${HELP_TARGET_ATTR}="${id}"]').forEach((e) => e.removeAttribute("${HELP_TARGET_ATTR}"))`;
  for (const frameId of [undefined, ...frameIds])
    await inWorld(tabId, expression, AbortSignal.timeout(2000), frameId).catch(() => undefined);
}

async function bringToFront(tabId: number, windowId: number): Promise<void> {
  await browser.windows.update(windowId, { focused: true, drawAttention: true }).catch(() => undefined);
  await browser.tabs.update(tabId, { active: true });
}

export async function requestHelp(p: ParsedParams<"request_help">, signal: AbortSignal): Promise<Result<"request_help">> {
  const started = performance.now();
  const { tab, tabId } = await resolveTab(p);
  const answer = async (outcome: Result<"request_help">["outcome"], note: string, targets: Found[]): Promise<Result<"request_help">> => {
    emit("help.outcome", { session_id: p.session_id, tab_id: tabId, outcome, note, ...(p.title !== undefined && { title: p.title }) });
    const state = await pageState(tabId, signal).catch(() => ({ url: tab.url ?? "", title: tab.title ?? "" }));
    return {
      tab_id: tabId,
      outcome,
      note,
      url: state.url,
      title: state.title,
      waited_ms: Math.round(performance.now() - started),
      targets,
    };
  };

  // The person's switch decides; nothing the agent sends can turn it back on.
  if (!(await readSwitches()).allow_help) return answer("disabled", "", []);

  const until = p.until;
  await checkSelectors(
    tabId,
    [until?.element_exists, until?.element_missing].filter((s): s is string => s !== undefined),
    signal,
  );
  const id = crypto.randomUUID();
  const { found, marked, inFrames } = await markTargets(p.session_id, tabId, p.targets, id, signal);
  // While the person helps, the tab's browser prompts are theirs to answer (an HTTP sign-in is often the help).
  letPersonAnswer(tabId, true);
  try {
    await bringToFront(tabId, tab.windowId);
    const { outcome, note } = await waitForPerson(
      { id, tabId, prompt: p.prompt, title: p.title, until, targets: marked, timeoutMs: p.timeout_ms },
      signal,
    );
    // The person finished in the tab: whatever the browser asked them is answered.
    if (outcome === "completed") clearPrompt(tabId);
    return await answer(outcome, note, found);
  } finally {
    letPersonAnswer(tabId, false);
    if (marked > 0 || found.some((f) => f.found)) {
      await noteFrameGone(tabId);
      await unmark(tabId, id, inFrames);
    }
  }
}
