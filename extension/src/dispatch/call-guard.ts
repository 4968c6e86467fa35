/**
 * Wraps the handlers of page-changing methods (BrowserMutation, TransientInput) of a session: a URL outside the
 * session's allowed origins is refused before anything happens (navigate, tab create); on an ask-first site (or in a
 * --confirm-writes session) the call waits for the person's Allow (features/approval/); what the browser did during
 * the call that the agent cannot see (a blocked navigation, a prompt for the person) fails the call with it.
 */
import { EFFECTS, METHODS, type ExtensionMethodName } from "../../../protocol/catalog.ts";
import { getSession } from "../session/sessions.ts";
import type { CallContext, Handler } from "../shared/handler.ts";
import type { SessionState } from "../session/settings.ts";
import { normalizeUrl } from "../../../protocol/urls.ts";
import { raceAbort } from "../shared/abort.ts";
import { endsTheCall, incidentError, promptEffect, watchIncidents } from "../features/guard/incidents.ts";
import { assertOriginAllowed } from "../features/guard/origins.ts";
import { approvalGate, errorWithApproval, withApproval } from "../features/approval/gate.ts";
import { ASKED_EFFECTS } from "../../../protocol/approval.ts";
import { checkBeforeInput } from "../session/input-mark.ts";

type Handlers = { [M in ExtensionMethodName]: Handler<M> };

function wrap(method: ExtensionMethodName, handler: Handler<ExtensionMethodName>): Handler<ExtensionMethodName> {
  return async (params, ctx) => {
    const p = params as { session_id?: string; tab_id?: number; url?: string };
    const session = p.session_id ? getSession(p.session_id) : undefined;
    if (!session) return handler(params, ctx);
    if (typeof p.url === "string" && session.allow_origins?.length) {
      // normalizeUrl throws invalid_params for what is not a URL; the handler would say the same.
      assertOriginAllowed(session, normalizeUrl(p.url), p.tab_id);
    }
    const { approved, recheck } = await approvalGate(method, params as Record<string, unknown>, session, ctx);
    if (recheck) checkBeforeInput(session.session_id, recheck);
    if (!approved) return run(method, handler, params, ctx, session);
    try {
      return withApproval(await run(method, handler, params, ctx, session), approved.approval) as never;
    } catch (err) {
      throw errorWithApproval(err, approved.approval);
    } finally {
      approved.release();
    }
  };
}

/** The call itself, watched for what the browser does meanwhile. */
async function run(
  method: ExtensionMethodName,
  handler: Handler<ExtensionMethodName>,
  params: unknown,
  ctx: CallContext,
  session: SessionState,
): Promise<never> {
  const p = params as { tab_id?: number };
  // What happens in the session's other tabs meanwhile is not this call's doing: only the tab it acts on and tabs
  // its page opens count (a borrowed tab arriving during tab borrow is the person's page, not a consequence).
  const before = new Set(Object.keys(session.tabs));
  const target = METHODS[method].scope === "tab" ? (p.tab_id ?? session.current_tab_id) : null;
  const ours = (tabId: number) => tabId === target || (!before.has(String(tabId)) && session.tabs[String(tabId)] !== "borrowed");
  const cut = new AbortController();
  const watch = watchIncidents(session.session_id, ours, (i) => {
    if (endsTheCall(i)) cut.abort(incidentError([i], null));
  });
  try {
    let result: unknown;
    try {
      result = await raceAbort(handler(params as never, { ...ctx, signal: AbortSignal.any([ctx.signal, cut.signal]) }), cut.signal);
    } catch (err) {
      if (watch.incidents.length) throw incidentError(watch.incidents, null);
      throw err;
    }
    if (watch.incidents.length) {
      // A prompt the action raised is its effect (it acted); anything else the browser did fails it.
      const prompted = promptEffect(watch.incidents, result);
      if (prompted) return prompted as never;
      throw incidentError(watch.incidents, { result });
    }
    return result as never;
  } finally {
    watch.dispose();
  }
}

/** Replaces, in place, the handler of every page-changing method with its guarded version. */
export function guardHandlers(handlers: Handlers): void {
  for (const method of Object.keys(handlers) as ExtensionMethodName[]) {
    if (!ASKED_EFFECTS.has(EFFECTS[method])) continue;
    (handlers as Record<string, Handler<ExtensionMethodName>>)[method] = wrap(method, handlers[method] as Handler<ExtensionMethodName>);
  }
}
