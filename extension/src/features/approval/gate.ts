/**
 * The approval gate the call guard runs before a page-changing call of a session (dispatch/call-guard.ts): when the
 * call's tab is on an ask-first site, or the session asks for every site (--confirm-writes), the call waits for the
 * person; anything but Allow fails it with approval_denied before anything reaches the page (effect_state none).
 * What was decided rides on the reply (`approval`), where the daemon's ledger finds it.
 */
import { METHODS, type ExtensionMethodName } from "../../../../protocol/catalog.ts";
import { BskError } from "../../../../protocol/errors.ts";
import type { ApprovalRecord } from "../../../../protocol/approval.ts";
import type { SessionState } from "../../session/settings.ts";
import type { CallContext } from "../../shared/handler.ts";
import { describeCall } from "./describe.ts";
import { askPerson } from "./registry.ts";
import { approvalTextGone } from "./text-frame.ts";
import { type AskWhy, whyAsk } from "./sites.ts";
import { INPUT_METHODS } from "../../page/prompt-state.ts";
import { listFrames } from "../../cdp/frames.ts";

const ENDINGS: Record<Exclude<ApprovalRecord["decision"], "allowed">, string> = {
  denied: "the person denied it",
  timed_out: "the person did not answer in time",
  tab_closed: "the tab closed while the person was asked",
  navigated: "the page changed while the person was asked, so their answer could not be for it",
};

/**
 * The tab a call acts on, when it is the session's: its `tab_id`, else the current tab. A tab the session does not
 * own (the one tab borrow asks to lend, which has its own consent prompt) is not asked here.
 */
function tabOf(method: ExtensionMethodName, p: { tab_id?: number }, session: SessionState): number | null {
  const tabId = p.tab_id ?? session.current_tab_id;
  if (tabId === null || tabId === undefined || !session.tabs[String(tabId)]) return null;
  if (p.tab_id === undefined && METHODS[method].scope !== "tab" && !session.confirm_writes) return null;
  return tabId;
}

export interface Approved {
  approval: ApprovalRecord;
  release: () => void;
}

export interface Gated {
  /** The person allowed the call (release once it is done). */
  approved?: Approved;
  /**
   * Not asked, but it could have been: run again right before the call's input goes out, it throws approval_required
   * when the tab would ask now (a listed site's frame came in, the page went to a listed site meanwhile).
   */
  recheck?: () => Promise<void>;
}

/** Calls that put input or a script into the page's documents, and so into whichever of its frames takes it. */
function reachesFrames(method: ExtensionMethodName, params: Record<string, unknown>): boolean {
  return INPUT_METHODS.has(method) || method === "evaluate" || (method === "observe" && params.probe_hover === true);
}

/** The call must be asked, and the person cannot be asked for it there (or not before it would act). */
function approvalRequired(method: ExtensionMethodName, tabId: number, why: AskWhy, reason: "no_panel_here" | "asks_now"): BskError {
  const where = why.cause === "confirm_writes" ? "this session asks before every change" : `${why.origin ?? "this site"} asks first`;
  const what =
    reason === "no_panel_here"
      ? `${where}, and this page (about:blank or another page of no site) cannot show the person's Allow`
      : `${where}, and the tab came to hold it after the call was checked`;
  return new BskError("approval_required", `${method} was not done: ${what}; nothing was sent to the page`, {
    data: { effect_state: "none", tab_id: tabId, reason, cause: why.cause, ...(why.origin && { origin: why.origin }) },
  });
}

/** Whether the call waits for the person, and if so that they allowed it; otherwise it throws. */
export async function approvalGate(
  method: ExtensionMethodName,
  params: Record<string, unknown>,
  session: SessionState,
  ctx: CallContext,
): Promise<Gated> {
  // A call that sends input only when asked to (observe without --probe-hover) is a read, and reads are not asked.
  const inputWhen = METHODS[method].inputWhen;
  if (inputWhen !== undefined && params[inputWhen] !== true) return {};
  const tabId = tabOf(method, params as { tab_id?: number }, session);
  if (tabId === null) return {};
  const frames = reachesFrames(method, params) ? () => listFrames(tabId).then((all) => all.map((f) => f.origin)) : undefined;
  const why = await whyAsk(session, tabId, frames);
  if (!why) {
    return {
      recheck: async () => {
        const now = await whyAsk(session, tabId, frames);
        if (now) throw approvalRequired(method, tabId, now, now.unshowable ? "no_panel_here" : "asks_now");
      },
    };
  }
  if (why.unshowable) throw approvalRequired(method, tabId, why, "no_panel_here");
  const text = await describeCall(method, params);
  const { record, release } = await askPerson({ tabId, text, ...why, callDeadline: ctx.deadline, signal: ctx.signal });
  if (record.decision === "allowed") {
    // The panel has left the page; the call acts once its text's frame has gone too (text-frame.ts).
    await approvalTextGone(tabId);
    return { approved: { approval: record, release } };
  }
  throw new BskError("approval_denied", `${method} was not done: ${ENDINGS[record.decision]} ("${text}")`, {
    data: { effect_state: "none", tab_id: tabId, approval: record },
  });
}

/** The result of an allowed call, with what was decided. */
export function withApproval(result: unknown, approval: ApprovalRecord): unknown {
  return result && typeof result === "object" && !Array.isArray(result) ? { ...result, approval } : result;
}

/** An allowed call that then failed still tells what was allowed. */
export function errorWithApproval(err: unknown, approval: ApprovalRecord): unknown {
  if (!(err instanceof BskError) || err.data?.approval !== undefined) return err;
  return new BskError(err.code, err.message, { hint: err.hint, data: { ...err.data, approval } });
}
