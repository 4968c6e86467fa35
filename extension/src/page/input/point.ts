/**
 * Actions on a point rather than an element (canvas, maps, mouse down/move/up, keys): the main frame's world arms
 * the DOM observer and names what is under the point, so the result still says what was acted on.
 */
import { BskError } from "../../../../protocol/errors.ts";
import { sendTo, mainFrameId } from "../../cdp/debugger.ts";
import { installDomProbe } from "../dom-probe.ts";
import { armNotice } from "../effects.ts";
import { dropWorld, isGoneError, worldOf } from "../../cdp/frames.ts";
import { learnOwnOverlay } from "../own-overlay.ts";
import { OWN_OVERLAY_GLOBAL, type Whose } from "../own-overlay-in-page.ts";
import type { CdpTarget } from "../../cdp/refs/target.ts";

export interface PointWorld {
  target: CdpTarget;
  contextId: number;
}

function atPointInPage(
  installProbe: (n: Node, via?: Element | null) => void,
  whose: (el: Element | null) => Whose,
  x: number | null,
  y: number | null,
): string {
  // (CDP passes a null argument as undefined.)
  if (x == null || y == null) {
    // Keys go to the focused element (or the body).
    installProbe(document, document.activeElement);
    // The probe just armed knows whether the element the keys go to hosts another document (dom-probe.ts elsewhere).
    const inFrame = !!(globalThis as any).__bskMut?.elsewhere();
    return JSON.stringify({ viewport: { width: innerWidth, height: innerHeight }, keysInFrame: inFrame });
  }
  if (x > innerWidth || y > innerHeight) return JSON.stringify({ viewport: { width: innerWidth, height: innerHeight }, outside: true });
  const hitAt = (px: number, py: number) => {
    let h = document.elementFromPoint(px, py);
    while (h?.shadowRoot) {
      const inner = h.shadowRoot.elementFromPoint(px, py);
      if (!inner || inner === h) break;
      h = inner;
    }
    return h;
  };
  let hit = hitAt(x, y);
  // Input at a point never presses bsk's own control pill (overlay/ui/host.ts): it steps aside to the other edge
  // first, before the DOM observer is armed (the move is not the page's change). It is known as itself, never by its
  // name (own-overlay-in-page.ts): a page's own <bsk-overlay> gets the input like any page element.
  const own = whose(hit);
  if (own === "ask") return JSON.stringify({ ask: true });
  if (own === "own" && hit) {
    hit.setAttribute("data-bsk-dodge", y < innerHeight / 2 ? "bottom" : "top");
    hit = hitAt(x, y);
  }
  installProbe(document, hit);
  let described: [string, string] = ["", ""];
  try {
    if (hit) described = JSON.parse((globalThis as any).__bsk.describe(hit));
  } catch {
    /* no runtime */
  }
  return JSON.stringify({
    viewport: { width: innerWidth, height: innerHeight },
    hit: hit ? { role: described[0] || hit.localName, name: described[1] } : null,
  });
}

// One source for every call (the point, the notice and `decide` are arguments), so the page compiles it once.
const FN = `function (x, y, notice, decide) {
  const whose = (el) => globalThis[${JSON.stringify(OWN_OVERLAY_GLOBAL)}].whose(el, decide);
  return (${atPointInPage.toString()})((n, via) => (${installDomProbe.toString()})(n, via, notice), whose, x, y);
}`;

export interface AtPoint {
  world: PointWorld;
  viewport: { width: number; height: number };
  hit: { role: string; name: string } | null;
  /** With no point (keys): the focus is in a child frame, so keys go into a document other than this one. */
  keysInFrame?: boolean;
}

function outsideViewport(x: number, y: number, viewport: { width: number; height: number }): BskError {
  return new BskError("invalid_params", `the point (${x}, ${y}) is outside the viewport (${viewport.width}×${viewport.height} CSS px)`, {
    hint: "Give --x and --y within the viewport (bsk screenshot shows it), or act on an element by its ref.",
    data: { reason: "outside_viewport", x, y, viewport },
  });
}

/** Arms the DOM observer in the main frame and describes the element at (x, y) (top-level viewport px). */
export async function atPoint(tabId: number, x: number | null, y: number | null, signal: AbortSignal, retried = false): Promise<AtPoint> {
  const target: CdpTarget = { tabId };
  const world = await worldOf(target, await mainFrameId(tabId, signal), signal);
  try {
    const notice = armNotice(tabId);
    const call = async (decide: boolean) => {
      const args = [x, y, notice, decide].map((value) => ({ value }));
      const r = await sendTo(
        target,
        "Runtime.callFunctionOn",
        { functionDeclaration: FN, executionContextId: world.contextId, arguments: args, returnByValue: true },
        signal,
      );
      return JSON.parse(String(r.result?.value ?? "{}")) as Omit<AtPoint, "world"> & { outside?: boolean; ask?: boolean };
    };
    let v = await call(false);
    // An element of the overlay's name the world does not know: it is told which one is bsk's, then decides.
    if (v.ask) {
      await learnOwnOverlay(tabId, target, { executionContextId: world.contextId }, signal);
      v = await call(true);
    }
    if (v.outside) throw outsideViewport(x!, y!, v.viewport);
    return {
      world: { target, contextId: world.contextId },
      viewport: v.viewport ?? { width: 0, height: 0 },
      hit: v.hit ?? null,
      ...(v.keysInFrame && { keysInFrame: true }),
    };
  } catch (err) {
    if (retried || !isGoneError(err)) throw err;
    dropWorld(world);
    return atPoint(tabId, x, y, signal, true);
  }
}
