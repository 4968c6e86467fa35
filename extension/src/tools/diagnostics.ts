/** console / network: read the tab's ring buffers (diagnostics/capture.ts) with a --since cursor. */
import type { diagnosticsMethods } from "../../../protocol/methods/diagnostics.ts";
import { raceAbort } from "../shared/abort.ts";
import { attach } from "../cdp/debugger.ts";
import { tabLogs } from "../features/diagnostics/capture.ts";
import { atLeast } from "../features/diagnostics/console-log.ts";
import { isFailed } from "../features/diagnostics/network-log.ts";
import { clip, type Page } from "../features/diagnostics/ring.ts";
import { resolveTab } from "../session/sessions.ts";
import type { FamilyHandlers } from "../shared/handler.ts";

/** Capture starts with the debugger's attachment; a tab never touched by a CDP command is attached now. */
async function logsOf(p: { session_id: string; tab_id?: number }, signal: AbortSignal) {
  const { tabId } = await resolveTab(p);
  await raceAbort(attach(tabId), signal);
  return { tabId, logs: await tabLogs(tabId) };
}

/** A page of entries as the wire shows them: texts cut to the caller's limit, timestamps in ISO 8601. */
function shown<T extends { ts: number }, U>(page: Page<T>, cut: (e: T) => U) {
  return {
    items: page.entries.map((e) => ({ ...e, ...cut(e), ts: new Date(e.ts).toISOString() })),
    next_since: page.next_since,
    dropped: page.dropped,
  };
}

export const diagnosticsHandlers: FamilyHandlers<typeof diagnosticsMethods> = {
  console: async (p, { signal }) => {
    const { tabId, logs } = await logsOf(p, signal);
    const page = logs.console.ring.read(p.since, p.limit, (e) => atLeast(e.level, p.level));
    const { items, ...cursor } = shown(page, (e) => ({
      text: clip(e.text, p.max_text_chars),
      ...(e.url !== undefined && { url: clip(e.url, p.max_text_chars) }),
    }));
    return { tab_id: tabId, messages: items, ...cursor };
  },

  network: async (p, { signal }) => {
    const { tabId, logs } = await logsOf(p, signal);
    const page = logs.network.ring.read(p.since, p.limit, p.failed ? isFailed : undefined);
    const { items, ...cursor } = shown(page, (e) => ({
      url: clip(e.url, p.max_text_chars),
      ...(e.error !== undefined && { error: clip(e.error, p.max_text_chars) }),
    }));
    return { tab_id: tabId, requests: items, ...cursor };
  },
};
