/** snapshot / observe / find / screenshot / get_html. */
import type { observationMethods } from "../../../protocol/methods/observation.ts";
import { resolveTarget } from "../cdp/refs/resolve.ts";
import { fullPage } from "../features/fullpage/capture.ts";
import { screenshot } from "../page/screenshot.ts";
import { frontTab } from "../page/shown.ts";
import { getSession, resolveTab } from "../session/sessions.ts";
import { capture } from "../page/snapshot/capture.ts";
import { findLines } from "../page/snapshot/find.ts";
import { getHtml } from "../page/snapshot/html.ts";
import { continueFrom, present } from "../page/snapshot/present.ts";
import { probeHover } from "../page/snapshot/probe.ts";
import { getLast } from "../page/snapshot/store.ts";
import { BskError } from "../../../protocol/errors.ts";
import { promptOf } from "../page/prompt-state.ts";
import type { FamilyHandlers } from "../shared/handler.ts";

/** A browser prompt waiting for the person, said in the header: input is refused until it is gone. */
function promptMarks(tabId: number): string[] {
  const prompt = promptOf(tabId);
  return prompt ? [`browser prompt ${prompt.kind} pending: input refused (bsk dialog dismiss, or bsk request-help)`] : [];
}

export const observationHandlers: FamilyHandlers<typeof observationMethods> = {
  snapshot: async (p, { signal }) => {
    const { tabId } = await resolveTab(p);
    if (p.cursor) return continueFrom(p.session_id, tabId, p.cursor);
    const cap = await capture(p.session_id, tabId, { viewport: p.viewport, maxOptions: p.max_options }, signal);
    return present(cap, {
      sessionId: p.session_id,
      maxTokens: p.max_tokens,
      viewport: p.viewport,
      diff: p.diff,
      maxDepth: p.max_depth,
      otherTab: p.tab_id !== undefined && p.tab_id !== getSession(p.session_id)?.current_tab_id,
      fullUrl: p.full_url,
      marks: promptMarks(tabId),
    });
  },

  observe: async (p, { signal }) => {
    const { tabId } = await resolveTab(p);
    if (p.cursor) return continueFrom(p.session_id, tabId, p.cursor);
    const appendix = p.probe_hover ? await probeHover(p.session_id, tabId, p.probe_ms, signal) : [];
    const cap = await capture(p.session_id, tabId, { viewport: p.viewport, maxOptions: p.max_options }, signal);
    return present(cap, {
      sessionId: p.session_id,
      maxTokens: p.max_tokens,
      viewport: p.viewport,
      diff: p.diff,
      maxDepth: p.max_depth,
      otherTab: p.tab_id !== undefined && p.tab_id !== getSession(p.session_id)?.current_tab_id,
      fullUrl: p.full_url,
      appendix,
      marks: promptMarks(tabId),
    });
  },

  find: async (p) => {
    const { tabId } = await resolveTab(p);
    const last = getLast(p.session_id, tabId);
    if (!last) {
      throw new BskError("not_found", `session ${p.session_id} has no snapshot of tab ${tabId} to search`, {
        hint: "Take one first: bsk snapshot.",
        data: { reason: "no_snapshot", tab_id: tabId },
      });
    }
    return { tab_id: tabId, ...findLines(last.lines, p.query, p.limit) };
  },

  screenshot: async (p, { signal }) => {
    // A page in a background tab paints nothing (a link the page opened in a new tab covers it).
    const { tabId } = await frontTab(p);
    const target = p.target ? await resolveTarget(p.session_id, tabId, p.target, signal) : null;
    return screenshot(tabId, target, p, signal, p.target ? { sessionId: p.session_id, target: p.target } : undefined);
  },

  "screenshot.full_page": (p, { signal, progress }) => fullPage(p, signal, progress),

  get_html: async (p, { signal }) => {
    const { tabId } = await resolveTab(p);
    const target = p.target ? await resolveTarget(p.session_id, tabId, p.target, signal) : null;
    return getHtml(tabId, target, p.max_bytes, signal);
  },
};
