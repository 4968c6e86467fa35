/**
 * evaluate --frame: where an iframe's own page script runs. An out-of-process iframe (another site) is its own CDP
 * session, whose default context is that frame's main world. A same-process iframe shares its parent's session;
 * its main world is found through its document: DOM.resolveNode without a context resolves in the main world,
 * and the remote object's id names its context (V8's "<isolate>.<context>.<id>").
 */
import { BskError } from "../../../protocol/errors.ts";
import { sendTo } from "../cdp/debugger.ts";
import { listFrames } from "../cdp/frames.ts";
import { resolveTarget } from "../cdp/refs/resolve.ts";
import type { CdpTarget } from "../cdp/refs/target.ts";

export interface FrameContext {
  target: CdpTarget;
  /** Absent: the session's default context (an out-of-process iframe's own main world). */
  contextId?: number;
  frameId: string;
}

interface DescribedNode {
  node: { localName?: string; frameId?: string; contentDocument?: { backendNodeId: number } };
}

export async function frameContext(sessionId: string, tabId: number, frameTarget: string, signal: AbortSignal): Promise<FrameContext> {
  const rt = await resolveTarget(sessionId, tabId, frameTarget, signal);
  const { node } = await sendTo<DescribedNode>(rt.cdp, "DOM.describeNode", { objectId: rt.objectId }, signal);
  if (!node.frameId) {
    throw new BskError("invalid_params", `--frame ${frameTarget} is a ${node.localName ?? rt.role}, not an iframe`, {
      hint: "Pass the ref of an iframe from bsk snapshot.",
      data: { reason: "not_a_frame", role: rt.role, name: rt.name },
    });
  }
  const frameId = node.frameId;
  if (node.contentDocument) {
    const { object } = await sendTo<{ object: { objectId?: string } }>(
      rt.cdp,
      "DOM.resolveNode",
      { backendNodeId: node.contentDocument.backendNodeId, objectGroup: "bsk-frame-eval" },
      signal,
    );
    const contextId = Number(object.objectId?.split(".")[1]);
    void sendTo(rt.cdp, "Runtime.releaseObjectGroup", { objectGroup: "bsk-frame-eval" }).catch(() => undefined);
    if (Number.isInteger(contextId) && contextId !== 0) return { target: rt.cdp, contextId, frameId };
    throw new BskError("cdp_failed", `cannot find the page context of frame ${frameId}`, {
      data: { reason: "frame_context", frame_id: frameId },
    });
  }
  const frame = (await listFrames(tabId, signal)).find((f) => f.frameId === frameId);
  if (!frame || frame.target.sessionId === rt.cdp.sessionId) {
    throw new BskError("not_found", `the iframe ${frameTarget} has no document yet`, {
      hint: "Wait for it to load (bsk wait-for), take a fresh snapshot, then retry.",
      data: { reason: "frame_not_loaded", frame_id: frameId },
    });
  }
  return { target: frame.target, frameId };
}
