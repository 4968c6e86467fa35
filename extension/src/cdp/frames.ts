/**
 * The frames of a tab, out-of-process iframes included, and bsk's isolated world in each.
 *
 * Out-of-process iframes are child CDP sessions of the tab's attachment: Target.setAutoAttach (flatten) on the tab
 * and on every child reports them, and commands reach them with chrome.debugger's `sessionId`. Each frame gets one
 * isolated world named "bsk" holding the page runtime (node identity lives there, so the page cannot see or touch
 * it); a navigation destroys the world with its document, and the next use creates a fresh one. Asking again for
 * the same name in the same document gives the same world back, so refs outlive a worker restart.
 */
import { BskError } from "../../../protocol/errors.ts";
import { onAttach, sendTo, tapCdp } from "./debugger.ts";
import { scriptText } from "../shared/script-text.ts";
import type { CdpTarget } from "./refs/target.ts";

/** Out-of-process iframes are attached paused: everything that must watch them from their start is set up first. */
const AUTO_ATTACH = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: "iframe" }] };

/** Runs on every out-of-process iframe's session before its document runs (after a worker restart too). */
export type ChildHook = (send: (method: string, params?: object) => Promise<any>, tabId: number) => Promise<unknown>;
const childHooks: ChildHook[] = [];

/** Families that watch pages from their start (browser prompts, the recorder) register here at start-up. */
export function onChildAttach(hook: ChildHook): void {
  childHooks.push(hook);
}

export interface FrameInfo {
  frameId: string;
  parentId?: string;
  /** The CDP session that owns the frame's document. */
  target: CdpTarget;
  url: string;
  /** The document's security origin as the browser reports it ("null" for an opaque one); absent when it said none. */
  origin?: string;
}

export interface World {
  target: CdpTarget;
  frameId: string;
  contextId: number;
  /** The page runtime's document token (see snapshot/page/runtime.ts). */
  doc: string;
}

interface Child {
  sessionId: string;
  /** An OOPIF's target id is its root frame's id. */
  frameId: string;
}

/** Tab id → child session id → child. */
const children = new Map<number, Map<string, Child>>();
/** worldKey → world being made or made. */
const worlds = new Map<string, Promise<World>>();

const worldKey = (t: CdpTarget, frameId: string) => `${t.tabId}|${t.sessionId ?? ""}|${frameId}`;

function forgetWorlds(match: (key: string) => boolean): void {
  for (const key of [...worlds.keys()]) if (match(key)) worlds.delete(key);
}

export function installFrameTracking(): void {
  onAttach((tabId, send) => {
    children.set(tabId, new Map());
    forgetWorlds((k) => k.startsWith(`${tabId}|`));
    // Off then on: after a worker restart the iframe sessions of the surviving attachment are unknown to us, and
    // only a fresh auto-attach reports them again (each with a new session id).
    return send("Target.setAutoAttach", { autoAttach: false, waitForDebuggerOnStart: false }).then(() =>
      send("Target.setAutoAttach", AUTO_ATTACH),
    );
  });
  tapCdp({
    onEvent(source, method, p) {
      if (method === "Page.frameNavigated") {
        forgetWorlds((k) => k === worldKey(source, p.frame.id));
      } else if (method === "Page.frameDetached") {
        forgetWorlds((k) => k.endsWith(`|${p.frameId}`) && k.startsWith(`${source.tabId}|`));
      } else if (method === "Target.attachedToTarget" && p.targetInfo?.type === "iframe") {
        adoptChild(source.tabId, p.sessionId, p.targetInfo.targetId);
      } else if (method === "Target.detachedFromTarget") {
        children.get(source.tabId)?.delete(p.sessionId);
        forgetWorlds((k) => k.startsWith(`${source.tabId}|${p.sessionId}|`));
      }
    },
    onDetach(tabId) {
      children.delete(tabId);
      forgetWorlds((k) => k.startsWith(`${tabId}|`));
    },
  });
}

function adoptChild(tabId: number, sessionId: string, frameId: string): void {
  let map = children.get(tabId);
  if (!map) children.set(tabId, (map = new Map()));
  map.set(sessionId, { sessionId, frameId });
  const child = { tabId, sessionId };
  const send = (method: string, params?: object) => sendTo(child, method, params);
  // Page events invalidate the child's worlds on navigation; auto-attach reaches iframes nested inside it. A hook's
  // failure is logged, never fatal: the frame is let go in any case.
  const setUp = [send("Page.enable"), send("Target.setAutoAttach", AUTO_ATTACH), ...childHooks.map((hook) => hook(send, tabId))].map((p) =>
    p.catch((err: unknown) => console.warn(`bsk: could not set up iframe session ${sessionId}: ${String(err)}`)),
  );
  void Promise.all(setUp).then(() => send("Runtime.runIfWaitingForDebugger").catch(() => undefined));
}

/** The sessions of the tab's out-of-process iframes known now. */
export function childSessionIds(tabId: number): string[] {
  return [...(children.get(tabId)?.keys() ?? [])];
}

/** The session of the out-of-process iframe whose root frame is `frameId`, when one is known now. */
export function childSessionOfFrame(tabId: number, frameId: string): string | undefined {
  for (const c of children.get(tabId)?.values() ?? []) if (c.frameId === frameId) return c.sessionId;
  return undefined;
}

/** Whether an out-of-process iframe's session is still attached (it goes when the frame navigates away or is removed). */
export function childSessionAlive(tabId: number, sessionId: string): boolean {
  return children.get(tabId)?.has(sessionId) ?? false;
}

interface FrameTree {
  frame: { id: string; parentId?: string; url: string; urlFragment?: string; securityOrigin?: string };
  childFrames?: FrameTree[];
}

function flatten(tree: FrameTree, target: CdpTarget, out: Map<string, FrameInfo>): void {
  const f = tree.frame;
  out.set(f.id, {
    frameId: f.id,
    ...(f.parentId ? { parentId: f.parentId } : {}),
    target,
    url: f.url + (f.urlFragment ?? ""),
    ...(f.securityOrigin ? { origin: f.securityOrigin } : {}),
  });
  for (const c of tree.childFrames ?? []) flatten(c, target, out);
}

/** Every frame of the tab, parents before children; a frame in an OOPIF session is listed with that session. */
export async function listFrames(tabId: number, signal?: AbortSignal): Promise<FrameInfo[]> {
  const main = await sendTo<{ frameTree: FrameTree }>({ tabId }, "Page.getFrameTree", {}, signal);
  const out = new Map<string, FrameInfo>();
  flatten(main.frameTree, { tabId }, out);
  const kids = [...(children.get(tabId)?.values() ?? [])];
  const trees = await Promise.all(
    kids.map((c) => sendTo<{ frameTree: FrameTree }>({ tabId, sessionId: c.sessionId }, "Page.getFrameTree", {}, signal).catch(() => null)),
  );
  trees.forEach((t, i) => {
    if (t) flatten(t.frameTree, { tabId, sessionId: kids[i]!.sessionId }, out);
  });
  return order([...out.values()]);
}

/**
 * The session holding a frame's document now, found by the frame's id: an out-of-process iframe's session is renewed
 * when the tab is attached again (the browser ends an attachment while another extension's frame shows), its frame
 * id stays. Null when the tab has no such frame any more.
 */
export async function frameTarget(tabId: number, frameId: string, signal?: AbortSignal): Promise<CdpTarget | null> {
  return (await listFrames(tabId, signal)).find((f) => f.frameId === frameId)?.target ?? null;
}

function order(frames: FrameInfo[]): FrameInfo[] {
  const byParent = new Map<string | undefined, FrameInfo[]>();
  const ids = new Set(frames.map((f) => f.frameId));
  for (const f of frames) {
    const parent = f.parentId && ids.has(f.parentId) ? f.parentId : undefined;
    byParent.set(parent, [...(byParent.get(parent) ?? []), f]);
  }
  const out: FrameInfo[] = [];
  const visit = (parent: string | undefined) => {
    for (const f of byParent.get(parent) ?? []) {
      out.push(f);
      visit(f.frameId);
    }
  };
  visit(undefined);
  return out;
}

/** The name of bsk's isolated world in every frame (Page.createIsolatedWorld). */
export const ISOLATED_WORLD = "bsk";

/** The page runtime (entrypoints/bsk-page.ts, built by WXT as one self-contained script). */
const loadPageScript = () => scriptText("/bsk-page.js");

/** bsk's isolated world of a frame with the page runtime installed; made once per document. */
export function worldOf(target: CdpTarget, frameId: string, signal?: AbortSignal): Promise<World> {
  const key = worldKey(target, frameId);
  let w = worlds.get(key);
  if (!w) {
    w = makeWorld(target, frameId, signal);
    worlds.set(key, w);
    w.catch(() => {
      if (worlds.get(key) === w) worlds.delete(key);
    });
  }
  return w;
}

/** Drops a world that turned out dead (its context is gone), so the next worldOf makes a new one. */
export function dropWorld(world: World): void {
  const key = worldKey(world.target, world.frameId);
  void worlds.get(key)?.then((w) => {
    if (w.contextId === world.contextId && worlds.get(key)) worlds.delete(key);
  });
}

async function makeWorld(target: CdpTarget, frameId: string, signal?: AbortSignal): Promise<World> {
  const [script, created] = await Promise.all([
    loadPageScript(),
    sendTo<{ executionContextId: number }>(target, "Page.createIsolatedWorld", { frameId, worldName: ISOLATED_WORLD }, signal),
  ]);
  const contextId = created.executionContextId;
  const r = await sendTo(
    target,
    "Runtime.evaluate",
    { expression: `${script}\n;globalThis.__bsk.doc`, contextId, returnByValue: true },
    signal,
  );
  if (r.exceptionDetails || typeof r.result?.value !== "string") {
    throw new BskError("cdp_failed", `bsk's page runtime did not start in frame ${frameId}: ${r.exceptionDetails?.text ?? "no token"}`, {
      data: { reason: "page_runtime_failed", frame_id: frameId },
    });
  }
  return { target, frameId, contextId, doc: r.result.value };
}

/** CDP's words for "that document / frame / session is gone". */
export function isGoneError(err: unknown): boolean {
  const m = err instanceof BskError ? String(err.data?.cdp_message ?? err.message) : String(err);
  return /context with specified id|Execution context was destroyed|No session with given id|No frame|Frame .*not found|not attached to an active page|Cannot find context|Session with given id not found|Inspected target navigated or closed/i.test(
    m,
  );
}

/** The frame's CDP session: its own for an OOPIF root, else its parent's (same process). */
function localRoot(frames: Map<string, FrameInfo>, frame: FrameInfo): FrameInfo {
  let f = frame;
  while (f.parentId) {
    const parent = frames.get(f.parentId);
    if (!parent || parent.target.sessionId !== f.target.sessionId) return f;
    f = parent;
  }
  return f;
}

/**
 * Top-left of a frame's viewport in the tab's top-level viewport, CSS px. DOM.getBoxModel answers in the viewport
 * of the element's local root (the main frame or an OOPIF root), so each level adds the box of its owner element
 * plus the offset of the owner's local root.
 */
export async function frameOffset(tabId: number, frameId: string, signal?: AbortSignal): Promise<{ x: number; y: number }> {
  const list = await listFrames(tabId, signal);
  const frames = new Map(list.map((f) => [f.frameId, f]));
  const offsetOf = async (id: string): Promise<{ x: number; y: number }> => {
    const frame = frames.get(id);
    if (!frame?.parentId) return { x: 0, y: 0 };
    const parent = frames.get(frame.parentId);
    if (!parent) return { x: 0, y: 0 };
    const owner = await sendTo<{ backendNodeId: number }>(parent.target, "DOM.getFrameOwner", { frameId: id }, signal);
    const box = await sendTo<{ model: { content: number[] } }>(
      parent.target,
      "DOM.getBoxModel",
      { backendNodeId: owner.backendNodeId },
      signal,
    );
    const base = await offsetOf(localRoot(frames, parent).frameId);
    return { x: base.x + box.model.content[0]!, y: base.y + box.model.content[1]! };
  };
  return offsetOf(frameId);
}
