/** screenshot: the viewport or one element's box, PNG or JPEG, as base64 (the CLI writes the file). */
import type { Result } from "../../../protocol/catalog.ts";
import { painted } from "./painted.ts";
import { BskError } from "../../../protocol/errors.ts";
import { fromBase64 } from "../shared/base64.ts";
import { mainFrameId, send, sendTo } from "../cdp/debugger.ts";
import { frameOffset, worldOf } from "../cdp/frames.ts";
import { claudeImageTokens, fitScale } from "../../../protocol/image-tokens.ts";
import type { ResolvedTarget } from "../cdp/refs/target.ts";
import type { Box } from "./actionability.ts";
import { keepCapture } from "./captures.ts";

/** bsk's own overlays (control pill, glow) register here to be hidden while capturing; none exist yet. */
export interface OverlayHider {
  hide(tabId: number): Promise<void>;
  show(tabId: number): Promise<void>;
}
const hiders: OverlayHider[] = [];
export function onCapture(h: OverlayHider): void {
  hiders.push(h);
}

/** Hides bsk's overlays in the tab for a longer capture; returns how to show them again. */
export async function hideOverlays(tabId: number): Promise<() => Promise<void>> {
  await Promise.all(hiders.map((h) => h.hide(tabId)));
  return async () => void (await Promise.all(hiders.map((h) => h.show(tabId))));
}

const BOX_FN = `function () {
  this.scrollIntoView({ block: "nearest", inline: "nearest" });
  const r = this.getBoundingClientRect();
  return [r.x, r.y, r.width, r.height];
}`;

/** Pixel size from the image header (PNG IHDR, JPEG SOFn). */
export function imageSize(bytes: Uint8Array): { width: number; height: number } {
  if (bytes[0] === 0x89 && bytes[1] === 0x50) {
    const v = new DataView(bytes.buffer, bytes.byteOffset);
    return { width: v.getUint32(16), height: v.getUint32(20) };
  }
  for (let i = 2; i + 9 < bytes.length; ) {
    if (bytes[i] !== 0xff) {
      i++;
      continue;
    }
    const marker = bytes[i + 1]!;
    const len = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (bytes[i + 5]! << 8) | bytes[i + 6]!, width: (bytes[i + 7]! << 8) | bytes[i + 8]! };
    }
    i += 2 + len;
  }
  return { width: 0, height: 0 };
}

interface ElementClip {
  /** Page coordinates, as captureScreenshot wants them. */
  clip: Box;
  /** The same area in the top-level viewport. */
  view: Box;
  /** The element's whole box in its frame's viewport, and where that frame is. */
  box: Box;
  offset: { x: number; y: number };
}

/** The element's box in the tab's top-level viewport after scrolling it into view, CSS px. */
async function elementClip(t: ResolvedTarget, signal?: AbortSignal): Promise<ElementClip> {
  const r = await sendTo(
    t.cdp,
    "Runtime.callFunctionOn",
    { functionDeclaration: BOX_FN, objectId: t.objectId, returnByValue: true },
    signal,
  );
  const [x, y, w, h] = r.result.value as number[];
  // Scrolling into view may have moved the frame itself within the page.
  const offset = t.frameOffset.x || t.frameOffset.y ? await frameOffset(t.tabId, t.frameId, signal) : t.frameOffset;
  if (!w || !h) {
    throw new BskError("unsupported", `${t.ref ?? "the element"} (${t.role} "${t.name}") has no visible box to capture`, {
      hint: "Capture the viewport instead, or pick a visible element.",
      data: { reason: "no_box" },
    });
  }
  const metrics = await send(t.tabId, "Page.getLayoutMetrics", {}, signal);
  const vv = metrics.cssVisualViewport as { pageX: number; pageY: number; clientWidth: number; clientHeight: number };
  // Only what shows in the viewport: clip to it, then move to page coordinates, which captureScreenshot wants.
  const left = Math.max(0, x! + offset.x);
  const top = Math.max(0, y! + offset.y);
  const right = Math.min(vv.clientWidth, x! + offset.x + w);
  const bottom = Math.min(vv.clientHeight, y! + offset.y + h);
  if (right <= left || bottom <= top) {
    throw new BskError("unsupported", `${t.ref ?? "the element"} is outside the viewport and could not be scrolled into it`, {
      data: { reason: "not_in_viewport" },
    });
  }
  const view = { x: left, y: top, width: right - left, height: bottom - top };
  return { clip: { ...view, x: left + vv.pageX, y: top + vv.pageY }, view, box: { x: x!, y: y!, width: w, height: h }, offset };
}

/** The tab's device pixel ratio, read in bsk's isolated world (where the page cannot redefine it). */
export async function pixelRatio(tabId: number, signal?: AbortSignal): Promise<number> {
  const world = await worldOf({ tabId }, await mainFrameId(tabId, signal), signal);
  const r = await sendTo(
    world.target,
    "Runtime.evaluate",
    { expression: "devicePixelRatio", contextId: world.contextId, returnByValue: true },
    signal,
  );
  return Number(r.result?.value) || 1;
}

/**
 * The area to capture scaled to a long-edge limit: the element's clip, or the viewport's (a scale needs a clip, and
 * the viewport's leaves out the scrollbars an unclipped capture has, which no limit could account for).
 */
async function limitedClip(tabId: number, clip: Box | undefined, maxEdge: number, signal?: AbortSignal) {
  let area = clip;
  if (!area) {
    const metrics = await send(tabId, "Page.getLayoutMetrics", {}, signal);
    const vv = metrics.cssVisualViewport as { pageX: number; pageY: number; clientWidth: number; clientHeight: number };
    area = { x: vv.pageX, y: vv.pageY, width: vv.clientWidth, height: vv.clientHeight };
  }
  return { ...area, scale: fitScale(area.width, area.height, await pixelRatio(tabId, signal), maxEdge) };
}

export async function screenshot(
  tabId: number,
  target: ResolvedTarget | null,
  p: { format: "png" | "jpeg"; quality?: number; max_edge?: number },
  signal?: AbortSignal,
  keep?: { sessionId: string; target: string },
): Promise<Result<"screenshot">> {
  const { format } = p;
  const el = target ? await elementClip(target, signal) : null;
  const clip = p.max_edge ? await limitedClip(tabId, el?.clip, p.max_edge, signal) : el && { ...el.clip, scale: 1 };
  await Promise.all(hiders.map((h) => h.hide(tabId)));
  let data: string;
  try {
    const params: Record<string, unknown> = { format, fromSurface: true };
    if (format === "jpeg") params.quality = p.quality ?? 80;
    if (clip) params.clip = clip;
    data = (await painted(tabId, "the screenshot", send<{ data: string }>(tabId, "Page.captureScreenshot", params, signal), signal)).data;
  } finally {
    await Promise.all(hiders.map((h) => h.show(tabId)));
  }
  const bytes = fromBase64(data);
  const { width, height } = imageSize(bytes);
  const capture_id =
    el && target && keep
      ? keepCapture({
          sessionId: keep.sessionId,
          tabId,
          target: keep.target,
          frameId: target.frameId,
          box: el.box,
          frameOffset: el.offset,
          clip: el.view,
          image: { width, height },
        })
      : undefined;
  // Image px per CSS px: what came out of the clip, or (nothing clipped) the device pixel ratio.
  const scale = clip ? width / clip.width : await pixelRatio(tabId, signal);
  return {
    tab_id: tabId,
    format,
    width,
    height,
    bytes: bytes.length,
    scale: Math.round(scale * 1000) / 1000,
    claude_tokens: claudeImageTokens(width, height),
    data,
    ...(capture_id && { capture_id }),
  };
}
