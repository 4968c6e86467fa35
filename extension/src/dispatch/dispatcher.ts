/**
 * Method name → handler, for every extension-owned method of the catalog. HANDLERS is typed as a complete
 * Record over ExtensionMethodName, so a catalog method without a handler does not compile.
 * Params are validated again here with the method's own schema (which also fills its defaults).
 */
import type { ExtensionMethodName } from "../../../protocol/catalog.ts";
import { EFFECTS, getMethod, isMethodName, METHODS } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";
import { abortError, raceAbort } from "../shared/abort.ts";
import { checkPageAfter, watchPageAhead } from "../cdp/debugger.ts";
import { beginCall } from "../features/control.ts";
import { crashGuard } from "../page/crash.ts";
import { dialogGuard, dialogSettled } from "../page/dialogs.ts";
import { guardHandlers } from "./call-guard.ts";
import { pausedPageGuard } from "../page/paused-page.ts";
import { endShowing } from "../page/shown.ts";
import { INPUT_METHODS, promptOf, promptPending } from "../page/prompt-state.ts";
import { beginMutation, faultPoint, withEffectState } from "../session/input-mark.ts";
import { getSession, ownerOfTab } from "../session/sessions.ts";
import { dialogHandlers } from "../tools/dialogs.ts";
import { diagnosticsHandlers } from "../tools/diagnostics.ts";
import { emulationHandlers } from "../tools/emulation.ts";
import { humanHandlers } from "../tools/human.ts";
import { fileHandlers } from "../tools/files.ts";
import { interactionHandlers } from "../tools/interaction.ts";
import { navigationHandlers } from "../tools/navigation.ts";
import { observationHandlers } from "../tools/observation.ts";
import { recordingHandlers } from "../tools/recording.ts";
import { sessionHandlers } from "../tools/session.ts";
import type { CallContext, Handler } from "../shared/handler.ts";
import { tabHandlers } from "../tools/tabs.ts";
import { waitHandlers } from "../tools/waits.ts";

const HANDLERS: { [M in ExtensionMethodName]: Handler<M> } = {
  ...sessionHandlers,
  ...tabHandlers,
  ...navigationHandlers,
  ...observationHandlers,
  ...interactionHandlers,
  ...diagnosticsHandlers,
  ...emulationHandlers,
  ...waitHandlers,
  ...dialogHandlers,
  ...humanHandlers,
  ...fileHandlers,
  ...recordingHandlers,
};
// Page-changing calls: allowed origins first, then what the browser did that the agent cannot see (guard/).
guardHandlers(HANDLERS);

type AnySchema = ReturnType<ReturnType<typeof getMethod>["params"]>;
const schemas = new Map<ExtensionMethodName, AnySchema>();

function paramsSchema(method: ExtensionMethodName): AnySchema {
  let schema = schemas.get(method);
  if (!schema) schemas.set(method, (schema = getMethod(method).params()));
  return schema;
}

function isExtensionMethod(name: string): name is ExtensionMethodName {
  return isMethodName(name) && METHODS[name].owner === "extension";
}

export async function dispatch(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
  if (!isExtensionMethod(method)) {
    throw new BskError("unknown_method", `the extension does not implement ${method}`, { data: { method } });
  }
  const parsed = paramsSchema(method).safeParse(params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    throw new BskError("invalid_params", `${method}: ${where}${issue?.message ?? "invalid params"}`);
  }
  const handler = HANDLERS[method] as Handler<ExtensionMethodName>;
  const p = parsed.data as { session_id?: string; tab_id?: number };
  assertSameLink(p, ctx);
  // A taken-over session refuses page actions here too; a takeover cuts its running calls off.
  const call = await beginCall(method, p, ctx.signal);
  const held = ctx.held && raceAbort(ctx.held, call.signal);
  const mutation = EFFECTS[method] === "BrowserMutation" && p.session_id ? beginMutation(p.session_id, method, held) : undefined;
  try {
    // Held, with no mark for sending() to hold it by: nothing runs until the op is on the daemon's disk.
    if (held && !mutation) await held;
    const result = await raceAbort(guarded(handler, method, parsed.data, { ...ctx, signal: call.signal }, mutation?.sent), call.signal);
    if (mutation) faultPoint({ method }, "after_reaction");
    return result;
  } catch (err) {
    // Once anything reached the page, a failure is never "nothing happened".
    throw mutation ? withEffectState(err, mutation.sent()) : err;
  } finally {
    mutation?.end();
    if (p.session_id) endShowing(p.session_id);
    call.end();
  }
}

/**
 * A session belongs to the link that opened it: a call naming another link's session (or one of its tabs) is
 * answered as if there were no such session, so the local daemon never reaches a remote agent's session, nor the
 * other way round.
 */
function assertSameLink(p: { session_id?: string; tab_id?: number }, ctx: CallContext): void {
  const s = p.session_id === undefined ? undefined : getSession(p.session_id);
  const tabOwner = p.tab_id === undefined ? undefined : ownerOfTab(p.tab_id)?.session;
  for (const owner of [s, tabOwner]) {
    if (owner && owner.remote_host !== ctx.remoteHost) {
      throw new BskError("not_found", `no live session ${p.session_id ?? owner.session_id} on this link`, {
        data: { reason: "session_ended", session_id: p.session_id ?? null },
      });
    }
  }
}

async function guarded(
  handler: Handler<ExtensionMethodName>,
  method: ExtensionMethodName,
  params: unknown,
  ctx: CallContext,
  sent?: () => boolean,
): Promise<unknown> {
  const tabId = dialogRaceTab(method, params as { session_id?: string; tab_id?: number });
  if (tabId === undefined) return handler(params as never, ctx);
  // A browser prompt up in the tab swallows input: refused, never reported as done (reads still work).
  const prompt = INPUT_METHODS.has(method) ? promptOf(tabId) : undefined;
  if (prompt) throw promptPending(tabId, prompt);
  // A JS dialog stalls the page: one already open fails the call now, one that opens during it ends it (one open
  // across a worker restart is read back first). A crashed renderer ends the call too (crash.ts).
  await dialogSettled(tabId);
  let guard = crashGuard(tabId, dialogGuard(tabId, ctx.signal), method);
  // A page the browser holds paused (printing) would hang input calls until their timeout.
  if (sent && INPUT_METHODS.has(method)) guard = pausedPageGuard(tabId, guard, sent);
  // Out of time, whatever it waited for: a script keeping the page busy is stopped (runaway.ts), and the answer says so.
  const { signal } = guard;
  const onAbort = () => {
    if (abortError(signal).code === "timeout") checkPageAfter(tabId, signal.reason);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  const unwatch = ctx.deadline === undefined ? undefined : watchPageAhead(tabId, ctx.deadline);
  try {
    return await handler(params as never, { ...ctx, signal });
  } finally {
    unwatch?.();
    signal.removeEventListener("abort", onAbort);
    guard.dispose();
  }
}

/** The tab a tab-scoped call acts on (as resolveTab will pick it), when it must race the tab's dialog state. */
function dialogRaceTab(method: ExtensionMethodName, p: { session_id?: string; tab_id?: number }): number | undefined {
  const def = getMethod(method);
  if (def.scope !== "tab" || def.runsUnderDialog) return undefined;
  return p.tab_id ?? getSession(p.session_id ?? "")?.current_tab_id ?? undefined;
}
