/**
 * Captures a tab: one walk per frame in bsk's isolated world (one call, one JSON string back), iframes stitched
 * in at their element's line, refs recorded in the session's table. Frames in other processes are reached through
 * their CDP child session; a frame that cannot be read says so in its place instead of failing the snapshot.
 */
import { errorMessage } from "../../shared/abort.ts";
import { sendTo } from "../../cdp/debugger.ts";
import { dropWorld, isGoneError, listFrames, worldOf, type FrameInfo, type World } from "../../cdp/frames.ts";
import { beginEpoch, nextRef, recordRefs, saveRefs } from "../../cdp/refs/table.ts";
import type { FrameWalk, WalkRequest } from "./page/runtime.ts";
import type { CapturedLine } from "./render.ts";

export interface Capture {
  tabId: number;
  url: string;
  title: string;
  lines: CapturedLine[];
  /** Controls covered by the main frame's modal dialog; null when no modal is open. */
  covered: number | null;
  frames: number;
  /** Time in the main frame's walk, ms. */
  walkMs: number;
}

const SNAPSHOT_FN = `function (request) { return globalThis.__bsk.snapshot(request); }`;
const FRAME_INDEX_FN = `function () { return globalThis.__bsk.frameIndex(this); }`;

async function walkIn(world: World, request: WalkRequest, signal?: AbortSignal): Promise<FrameWalk> {
  const r = await sendTo(
    world.target,
    "Runtime.callFunctionOn",
    { functionDeclaration: SNAPSHOT_FN, executionContextId: world.contextId, arguments: [{ value: request }], returnByValue: true },
    signal,
  );
  if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
  return JSON.parse(r.result.value as string) as FrameWalk;
}

/** Walks a frame, making its world again once if it died with a navigation we had not heard of yet. */
async function walkFrame(frame: FrameInfo, request: WalkRequest, signal?: AbortSignal): Promise<{ world: World; walk: FrameWalk }> {
  for (let attempt = 0; ; attempt++) {
    const world = await worldOf(frame.target, frame.frameId, signal);
    try {
      return { world, walk: await walkIn(world, request, signal) };
    } catch (err) {
      if (attempt > 0 || !isGoneError(err)) throw err;
      dropWorld(world);
    }
  }
}

/** Which of the parent walk's iframe lines hosts `child` (-1 if none: hidden, covered by a modal, or gone). */
async function placeholderOf(parent: World, child: FrameInfo, signal?: AbortSignal): Promise<number> {
  try {
    const owner = await sendTo<{ backendNodeId: number }>(parent.target, "DOM.getFrameOwner", { frameId: child.frameId }, signal);
    const resolved = await sendTo<{ object: { objectId: string } }>(
      parent.target,
      "DOM.resolveNode",
      { backendNodeId: owner.backendNodeId, executionContextId: parent.contextId },
      signal,
    );
    const r = await sendTo(
      parent.target,
      "Runtime.callFunctionOn",
      { functionDeclaration: FRAME_INDEX_FN, objectId: resolved.object.objectId, returnByValue: true },
      signal,
    );
    void sendTo(parent.target, "Runtime.releaseObject", { objectId: resolved.object.objectId }).catch(() => undefined);
    return typeof r.result?.value === "number" ? r.result.value : -1;
  } catch {
    return -1;
  }
}

export async function capture(
  sessionId: string,
  tabId: number,
  opts: { viewport: boolean; maxOptions?: number },
  signal?: AbortSignal,
): Promise<Capture> {
  const frames = await listFrames(tabId, signal);
  const epoch = await beginEpoch(sessionId);
  const kids = new Map<string, FrameInfo[]>();
  for (const f of frames) if (f.parentId) kids.set(f.parentId, [...(kids.get(f.parentId) ?? []), f]);

  const visit = async (frame: FrameInfo, depth: number, vis: boolean, out: CapturedLine[]): Promise<FrameWalk> => {
    const request: WalkRequest = {
      session: sessionId,
      next: await nextRef(sessionId),
      viewport: opts.viewport,
      ...(opts.maxOptions ? { maxOptions: opts.maxOptions } : {}),
    };
    const { world, walk } = await walkFrame(frame, request, signal);
    await recordRefs(
      sessionId,
      {
        tabId,
        ...(frame.target.sessionId ? { sessionId: frame.target.sessionId } : {}),
        frameId: frame.frameId,
        contextId: world.contextId,
        doc: world.doc,
        url: walk.url,
      },
      epoch,
      walk.next,
      walk.refs,
    );
    const hosted = new Map<number, FrameInfo>();
    const children = kids.get(frame.frameId) ?? [];
    if (children.length && walk.lines.some((l) => l[3] >= 0)) {
      const slots = await Promise.all(children.map((c) => placeholderOf(world, c, signal)));
      children.forEach((c, i) => {
        if (slots[i]! >= 0) hosted.set(slots[i]!, c);
      });
    }
    for (const [d, text, v, slot, alone] of walk.lines) {
      out.push({ depth: depth + d, text, vis: vis && v === 1, ...(alone && { alone }) });
      const child = slot >= 0 ? hosted.get(slot) : undefined;
      if (!child) continue;
      try {
        await visit(child, depth + d + 1, vis && v === 1, out);
      } catch (err) {
        if (signal?.aborted) throw err;
        out.push({ depth: depth + d + 1, text: `# frame not readable: ${errorMessage(err).split("\n")[0]}`, vis: false });
      }
    }
    return walk;
  };

  const lines: CapturedLine[] = [];
  const main = frames[0]!;
  const top = await visit(main, 0, true, lines);
  await saveRefs(sessionId);
  return { tabId, url: top.url, title: top.title, lines, covered: top.modal?.covered ?? null, frames: frames.length, walkMs: top.ms };
}
