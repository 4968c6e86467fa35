/**
 * resolveTarget: a ref (`@e12` / `e12`) or a CSS selector → the one node it means, or an error; never a guess.
 *
 * A ref is looked up in the session's table (where its node lives), then in the page: bsk's isolated world of that
 * document keeps the node. A document that changed (its world is gone or has another token), a node that was
 * removed, a ref from before a takeover → stale_ref, and nothing is done with it.
 * A selector must match exactly one element in the main frame and its open shadow roots.
 */
import { BskError } from "../../../../protocol/errors.ts";
import { knownMainFrameId, mainFrameId, sendTo } from "../debugger.ts";
import { callInWorld } from "../page-call.ts";
import { childSessionAlive, dropWorld, frameOffset, frameTarget, isGoneError, worldOf } from "../frames.ts";
import { lookupRef, targetOf, type RefEntry, type WorldRecord } from "./table.ts";
import type { CdpTarget, ResolvedTarget, TabAhead } from "./target.ts";

const REF = /^@?e(\d{1,9})$/;

/** `@e12` / `e12` → 12; anything else is a selector. */
export function parseRef(target: string): number | null {
  const m = REF.exec(target.trim());
  return m ? Number(m[1]) : null;
}

export async function resolveTarget(sessionId: string, tabId: number, target: string, signal?: AbortSignal): Promise<ResolvedTarget> {
  const n = parseRef(target);
  return n === null ? resolveSelector(tabId, target, signal) : resolveRef(sessionId, tabId, n, signal);
}

/**
 * Page work on the target that may ride in the same round trip as the ref's lookup: `fn` is a function's source,
 * run with `this` = the element and `args`, returning a JSON string or a promise of one.
 */
export interface Alongside {
  fn: string;
  args: unknown[];
}

/**
 * resolveTarget, with `along` sent right behind the lookup without waiting for its answer (CDP runs a target's
 * Runtime commands in order): the lookup hands the element it found to `along` under a key of this call, so `along`
 * acts on exactly that element, or on nothing when the lookup found none (the lookup's error is thrown). `along` is
 * null when it did not run on `rt` (a selector, or a hand-over it did not find): the caller then runs it on `rt`.
 *
 * With a TabAhead, the lookup (a read in bsk's world) runs beside the tab's checks, `along` (which may change the
 * page: focus, a choice) is sent only once they pass, and their refusal wins over whatever the lookup answered.
 */
export async function resolveWith<T>(
  sessionId: string,
  tab: number | TabAhead,
  target: string,
  along: Alongside,
  signal?: AbortSignal,
  found?: (rt: ResolvedTarget) => void,
): Promise<{ rt: ResolvedTarget; along: T | null }> {
  const gate = typeof tab === "number" || tab.tabId === null ? undefined : tab.checked;
  const tabId = await tabOf(tab);
  const n = parseRef(target);
  if (n === null) {
    await gate;
    const rt = await resolveSelector(tabId, target, signal);
    found?.(rt);
    return { rt, along: null };
  }
  const key = `h${++handoffs}`;
  let alongReply: Promise<T | null> | undefined;
  let rt: ResolvedTarget;
  try {
    rt = await resolveRef(sessionId, tabId, n, signal, {
      key,
      send: (cdp, contextId) => {
        const send = () => callInWorld<T | null>(cdp, contextId, ALONG_FN(along.fn), [key, along.args], signal);
        alongReply = gate ? gate.then(send) : send();
        // Its failure is the lookup's (or the checks') to report when both fail (a world that went away).
        alongReply.catch(() => undefined);
      },
    });
  } catch (err) {
    await gate;
    throw err;
  }
  await gate;
  found?.(rt);
  return { rt, along: alongReply ? await alongReply : null };
}

/** The tab a call acts on: known at once, or (records silent) once its checks have passed. */
export async function tabOf(tab: number | TabAhead): Promise<number> {
  return typeof tab === "number" ? tab : (tab.tabId ?? (await tab.checked).tabId);
}

let handoffs = 0;

const ALONG_FN = (fn: string) => `function (key, args) {
  const b = globalThis.__bsk;
  const h = b && b.handoff;
  if (!h || h.key !== key) return "null";
  b.handoff = null;
  return (${fn}).apply(h.el, args);
}`;

interface RemoteObject {
  type: string;
  subtype?: string;
  value?: unknown;
  objectId?: string;
}

interface CallReply {
  result: RemoteObject;
  exceptionDetails?: { text: string; exception?: { description?: string } };
}

/** With a handoff key, the element found is also kept for the call sent right behind (resolveWith). */
const RESOLVE_FN = `function (session, n, doc, key) {
  const b = globalThis.__bsk;
  if (!b || b.doc !== doc) return "document";
  const el = b.resolve(session, n);
  b.handoff = key && typeof el !== "string" ? { key, el } : null;
  return el;
}`;

const QUERY_FN = `function (selector) { return globalThis.__bsk.query(selector); }`;
const DESCRIBE_FN = `function () { return globalThis.__bsk.describe(this); }`;

function describeEntry(ref: string, e: RefEntry): string {
  return e.name ? `${ref} (${e.role} "${e.name}")` : `${ref} (${e.role})`;
}

function stale(ref: string, e: RefEntry, what: string, reason: string, extra: Record<string, unknown> = {}): BskError {
  return new BskError("stale_ref", `${describeEntry(ref, e)} is stale: ${what}; nothing was done`, {
    data: { reason, ref, tab_id: e.world.tabId, frame_id: e.world.frameId, ...extra },
  });
}

/** Why the ref's document is gone, as far as the tab can tell. */
async function documentChange(e: RefEntry, signal?: AbortSignal): Promise<{ what: string; url?: string }> {
  try {
    const { result } = await sendTo<CallReply>(
      { tabId: e.world.tabId },
      "Runtime.evaluate",
      { expression: "location.href", returnByValue: true },
      signal,
    );
    const now = String(result.value ?? "");
    const isMain = !e.world.sessionId && e.world.frameId === (await mainFrameId(e.world.tabId, signal));
    if (isMain && now && now !== e.world.url) {
      return { what: `the tab navigated from ${e.world.url} to ${now} since the snapshot`, url: now };
    }
  } catch {
    /* the tab may be mid-navigation */
  }
  return { what: `the document it was in (${e.world.url}) was replaced or its frame was removed since the snapshot` };
}

interface Handoff {
  key: string;
  /** Sends the call that takes the element over, right after the lookup was sent. */
  send: (cdp: CdpTarget, contextId: number) => void;
}

/**
 * A ref's world in the session that holds its frame now: an out-of-process iframe's session is renewed when the tab is
 * attached again (the browser ends an attachment while another extension's frame shows), its frame id stays, and the
 * same document gives the same world back (same name, same token, which the page runtime checks). The recorded world
 * when its session is alive or its frame is not found.
 */
async function currentWorld(w: WorldRecord, signal?: AbortSignal): Promise<WorldRecord> {
  if (w.sessionId === undefined || childSessionAlive(w.tabId, w.sessionId)) return w;
  const target = await frameTarget(w.tabId, w.frameId, signal).catch(() => null);
  if (!target?.sessionId) return w;
  const now = await worldOf(target, w.frameId, signal).catch(() => null);
  return now && now.doc === w.doc ? { ...w, sessionId: target.sessionId, contextId: now.contextId } : w;
}

async function resolveRef(sessionId: string, tabId: number, n: number, signal?: AbortSignal, handoff?: Handoff): Promise<ResolvedTarget> {
  const ref = `@e${n}`;
  const { entry, stale: invalidated } = await lookupRef(sessionId, n);
  if (!entry) {
    throw new BskError("not_found", `no ref ${ref} in session ${sessionId}`, {
      hint: "Refs come from bsk snapshot of this session; take one and use the refs it prints.",
      data: { reason: "ref_not_found", ref },
    });
  }
  if (entry.world.tabId !== tabId) {
    throw new BskError("not_found", `${describeEntry(ref, entry)} belongs to tab ${entry.world.tabId}, not tab ${tabId}`, {
      hint: `Act on it in its own tab: add --tab ${entry.world.tabId}.`,
      data: { reason: "ref_other_tab", ref, ref_tab_id: entry.world.tabId, tab_id: tabId },
    });
  }
  if (invalidated) throw stale(ref, entry, "refs from before the person took over are no longer trusted", "refs_invalidated");

  const world = await currentWorld(entry.world, signal);
  const cdp = targetOf(world);
  let reply: CallReply;
  try {
    const lookup = sendTo<CallReply>(
      cdp,
      "Runtime.callFunctionOn",
      {
        functionDeclaration: RESOLVE_FN,
        executionContextId: world.contextId,
        arguments: [{ value: sessionId }, { value: n }, { value: world.doc }, { value: handoff?.key ?? null }],
      },
      signal,
    );
    handoff?.send(cdp, world.contextId);
    reply = await lookup;
  } catch (err) {
    const sessionGone = world.sessionId !== undefined && !childSessionAlive(tabId, world.sessionId);
    if (!isGoneError(err) && !sessionGone) throw err;
    const change = await documentChange(entry, signal);
    throw stale(ref, entry, change.what, "document_changed", change.url ? { url: change.url } : {});
  }
  if (reply.exceptionDetails) {
    throw new BskError("cdp_failed", `resolving ${ref} failed in the page: ${reply.exceptionDetails.text}`, {
      data: { reason: "page_runtime_failed", ref },
    });
  }
  if (reply.result.type === "string") {
    const why = reply.result.value;
    if (why === "document") {
      const change = await documentChange(entry, signal);
      throw stale(ref, entry, change.what, "document_changed");
    }
    if (why === "detached" || why === "gone") {
      throw stale(ref, entry, "its element was removed from the page (re-rendered or closed) since the snapshot", "node_removed");
    }
    throw stale(ref, entry, "its document does not know it (the page was reloaded)", "document_changed");
  }
  const objectId = reply.result.objectId!;
  // The snapshot's words for the element stand (below): the page is asked for them only where the snapshot had none.
  // The main frame sits at the viewport's origin: no frame tree to read.
  const isMain = !entry.world.sessionId && entry.world.frameId === knownMainFrameId(tabId);
  const [described, offset] = await Promise.all([
    !entry.role || !entry.name ? describeInPage(cdp, objectId, signal) : undefined,
    isMain ? { x: 0, y: 0 } : frameOffset(tabId, entry.world.frameId, signal),
  ]);
  return {
    tabId,
    cdp,
    frameId: entry.world.frameId,
    objectId,
    ref,
    // The agent picked the element by what the snapshot called it (`clickable "Custom div control"`): replies use
    // those words, not the browser's role for the bare element.
    role: entry.role || described?.role || "generic",
    name: entry.name || described?.name || "",
    frameOffset: offset,
  };
}

/** The role and name the page gives the node. */
async function describeInPage(cdp: CdpTarget, objectId: string, signal?: AbortSignal): Promise<{ role: string; name: string }> {
  const desc = await sendTo<CallReply>(
    cdp,
    "Runtime.callFunctionOn",
    { functionDeclaration: DESCRIBE_FN, objectId, returnByValue: true },
    signal,
  );
  if (desc.exceptionDetails || typeof desc.result.value !== "string") return { role: "generic", name: "" };
  const [role, name] = JSON.parse(desc.result.value) as [string, string];
  return { role, name };
}

/** The target's backend node id, asked of the browser the first time a call needs it (kept on `rt`). */
export async function backendNodeIdOf(rt: ResolvedTarget, signal?: AbortSignal): Promise<number> {
  if (rt.backendNodeId === undefined) {
    const d = await sendTo<{ node: { backendNodeId: number } }>(rt.cdp, "DOM.describeNode", { objectId: rt.objectId }, signal);
    rt.backendNodeId = d.node.backendNodeId;
  }
  return rt.backendNodeId;
}

async function resolveSelector(tabId: number, selector: string, signal?: AbortSignal, retried = false): Promise<ResolvedTarget> {
  const cdp: CdpTarget = { tabId };
  const frameId = await mainFrameId(tabId, signal);
  const world = await worldOf(cdp, frameId, signal);
  let reply: CallReply;
  try {
    reply = await sendTo<CallReply>(
      cdp,
      "Runtime.callFunctionOn",
      { functionDeclaration: QUERY_FN, executionContextId: world.contextId, arguments: [{ value: selector }] },
      signal,
    );
  } catch (err) {
    // The world died with its document (a navigation we had not heard of yet): make a new one, once.
    if (retried || !isGoneError(err)) throw err;
    dropWorld(world);
    return resolveSelector(tabId, selector, signal, true);
  }
  if (reply.exceptionDetails) {
    throw new BskError("cdp_failed", `the selector search failed in the page: ${reply.exceptionDetails.text}`, {
      data: { reason: "page_runtime_failed" },
    });
  }
  if (reply.result.type === "string") {
    const r = JSON.parse(String(reply.result.value)) as { count?: number; error?: string };
    if (r.error !== undefined) {
      throw new BskError("invalid_params", `${JSON.stringify(selector)} is not a valid CSS selector: ${r.error}`, {
        hint: "Use a ref from bsk snapshot (@e12) or a valid CSS selector.",
        data: { reason: "invalid_selector", selector },
      });
    }
    if (!r.count) {
      throw new BskError("not_found", `no element matches ${JSON.stringify(selector)}`, {
        hint: "Check the selector against bsk snapshot / bsk get-html, or use a ref; iframes are reached through refs.",
        data: { reason: "selector_not_found", selector },
      });
    }
    throw new BskError("invalid_params", `${JSON.stringify(selector)} matches ${r.count} elements; a target must match exactly one`, {
      data: { reason: "ambiguous_selector", selector, count: r.count },
    });
  }
  const objectId = reply.result.objectId!;
  const described = await describeInPage(cdp, objectId, signal);
  return {
    tabId,
    cdp,
    frameId,
    objectId,
    role: described.role,
    name: described.name,
    frameOffset: { x: 0, y: 0 },
  };
}
