/** session.open / session.close: the daemon's calls that make and end an Agent Window (or a tab group, session/groups.ts). */
import { browser } from "wxt/browser";
import { attach } from "../cdp/debugger.ts";
import { BskError } from "../../../protocol/errors.ts";
import type { sessionWireMethods } from "../../../protocol/methods/session.ts";
import type { ParsedParams, Result } from "../../../protocol/catalog.ts";
import type { CallContext, FamilyHandlers } from "../shared/handler.ts";
import { observeSession } from "../features/observe.ts";
import { rulesInStep } from "../features/guard/origins.ts";
import { openIncognitoWindow } from "../session/isolated.ts";
import { groupWindow, openGroup } from "../session/groups.ts";
import { whileOpening } from "../session/live-script.ts";
import { addSession, closeSession, getSession, sessionByWindow } from "../session/sessions.ts";

/**
 * The session's first call attaches the debugger to its tab (with every attach hook: the page domains, interception,
 * the registries, ~150 ms). Started now, that runs while the agent reads the answer and sends its next call. Not
 * awaited: a failure leaves nothing behind, and the next call attaches again and reports it.
 */
function attachAhead(tabId: number): void {
  attach(tabId).catch(() => undefined);
}

/**
 * The blocking rules cover the session's first tab before session.open answers, so before the agent can navigate it.
 * The attach needs no rules (it loads nothing): it starts once the attach hooks can see what the session observes,
 * and runs beside the rules' update instead of after it.
 */
async function rulesAndAttach(p: ParsedParams<"session.open">, tabId: number): Promise<void> {
  const rules = rulesInStep();
  await observeSession(p.session_id, p.observe);
  attachAhead(tabId);
  await rules;
}

export const sessionHandlers: FamilyHandlers<typeof sessionWireMethods> = {
  "session.open": (p, ctx) => whileOpening(() => openSession(p, ctx)),

  "session.close": async (p) => closeSession(p.session_id),
};

async function openSession(p: ParsedParams<"session.open">, ctx: CallContext): Promise<Result<"session.open">> {
  const existing = getSession(p.session_id);
  if (existing) {
    // A retried open: answer with the window (or group) it already has, if the person has not closed it.
    const alive =
      existing.group_id !== undefined
        ? (await groupWindow(existing.group_id)) !== undefined
        : await browser.windows.get(existing.window_id).then(
            () => true,
            () => false,
          );
    if (alive && existing.current_tab_id !== null) {
      return {
        window_id: existing.window_id,
        tab_id: existing.current_tab_id,
        ...(existing.group_id !== undefined && { group_id: existing.group_id }),
      };
    }
    await closeSession(p.session_id);
  }
  const common = {
    session_id: p.session_id,
    name: p.name,
    allow_origins: p.allow_origins,
    block_requests: p.block_requests,
    confirm_writes: p.confirm_writes,
    no_borrow: !p.borrow,
    ...(ctx.remoteHost !== undefined && { remote_host: ctx.remoteHost }),
  };
  if (p.where === "group") {
    const g = await openGroup({
      sessionId: p.session_id,
      label: p.name || p.session_id,
      focus: p.focus,
      isAgentWindow: (id) => sessionByWindow(id) !== undefined,
    });
    addSession({ ...common, window_id: g.window_id, tab_id: g.tab_id, group_id: g.group_id });
    await rulesAndAttach(p, g.tab_id);
    return g;
  }
  const win = p.isolated
    ? await openIncognitoWindow(p)
    : await browser.windows.create({
        type: "normal",
        url: "about:blank",
        focused: p.focus,
        ...(p.width === undefined ? {} : { width: p.width }),
        ...(p.height === undefined ? {} : { height: p.height }),
      });
  const tabId = win?.tabs?.[0]?.id;
  if (win?.id === undefined || tabId === undefined) {
    throw new BskError("cdp_failed", "the browser did not open a window", { data: { reason: "window_create_failed" } });
  }
  addSession({ ...common, window_id: win.id, tab_id: tabId, isolated: p.isolated });
  await rulesAndAttach(p, tabId);
  return { window_id: win.id, tab_id: tabId };
}
