/**
 * observe --probe-hover: moves the mouse over likely menu triggers in the main frame, one at a time, and reports
 * the controls each one reveals (with refs: hover the trigger first, then act). Bounded by the time budget and a
 * few candidates; the mouse is parked at the top-left corner afterwards.
 */
import { mainFrameId, send, sendTo } from "../../cdp/debugger.ts";
import { worldOf } from "../../cdp/frames.ts";
import { nextRef, recordRefs, saveRefs, beginEpoch } from "../../cdp/refs/table.ts";

const MAX_CANDIDATES = 6;

export async function probeHover(sessionId: string, tabId: number, budgetMs: number, signal?: AbortSignal): Promise<string[]> {
  const deadline = Date.now() + budgetMs;
  const frameId = await mainFrameId(tabId, signal);
  const world = await worldOf({ tabId }, frameId, signal);
  const call = async (fn: string, args: unknown[], awaitPromise = false) => {
    const r = await sendTo(
      { tabId },
      "Runtime.callFunctionOn",
      {
        functionDeclaration: fn,
        executionContextId: world.contextId,
        arguments: args.map((value) => ({ value })),
        returnByValue: true,
        awaitPromise,
      },
      signal,
    );
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    return r.result.value as string;
  };
  const points = JSON.parse(await call(`function (max) { return globalThis.__bsk.probe(max); }`, [MAX_CANDIDATES])) as [number, number][];
  const lines: string[] = [];
  if (!points.length) return lines;
  const epoch = await beginEpoch(sessionId);
  const url = (await send(tabId, "Runtime.evaluate", { expression: "location.href", returnByValue: true }, signal)).result.value as string;
  try {
    for (let i = 0; i < points.length && Date.now() < deadline; i++) {
      const [x, y] = points[i]!;
      await send(tabId, "Input.dispatchMouseEvent", { type: "mouseMoved", x, y }, signal);
      const r = JSON.parse(
        await call(`function (s, n, i) { return globalThis.__bsk.revealed(s, n, i); }`, [sessionId, await nextRef(sessionId), i], true),
      ) as { lines: string[]; refs: [number, string, string][]; next: number };
      await recordRefs(sessionId, { tabId, frameId, contextId: world.contextId, doc: world.doc, url }, epoch, r.next, r.refs);
      lines.push(...r.lines);
    }
  } finally {
    await send(tabId, "Input.dispatchMouseEvent", { type: "mouseMoved", x: 0, y: 0 }).catch(() => undefined);
    await saveRefs(sessionId);
  }
  return lines;
}
