/**
 * screenshot.full_page: scroll through the page a viewport at a time, capture only the rows not captured yet, and
 * stream them as one PNG (png.ts) into a staged transfer in the daemon, which the CLI then writes. `current` stops at
 * the height the page had at the start; `follow` keeps going while the page grows (an infinite feed loads more as
 * the bottom comes into view) until it stays the same for quiet_ms, or max_height. Navigating, closing or
 * deactivating the tab, leaving the session, or a cancel aborts the capture and drops what was staged: never a
 * partial image. The scroll position is restored afterwards.
 * --max-edge scales the capture (CDP's clip scale) so no side of the image is over it; the width alone with --tiles,
 * which cuts the image into PNGs of at most that many rows (tiles.ts). Without tiles, `follow` stops once the image
 * is that tall.
 */
import { browser } from "wxt/browser";
import type { ParsedParams, Result } from "../../../../protocol/catalog.ts";
import { BskError } from "../../../../protocol/errors.ts";
import { raceAbort } from "../../shared/abort.ts";
import { mainFrameId, send, sendTo, subscribe } from "../../cdp/debugger.ts";
import { worldOf, type World } from "../../cdp/frames.ts";
import { painted } from "../../page/painted.ts";
import { hideOverlays } from "../../page/screenshot.ts";
import { resolveTab } from "../../session/sessions.ts";
import { TransferOut } from "../files/transfer-out.ts";
import type { Progress } from "../../shared/handler.ts";
import { PNG_END, PNG_HEAD_BYTES, pngHead, RowEncoder } from "./png.ts";
import { TiledPng } from "./tiles.ts";
import { CLAUDE_LONG_EDGE, claudeImageTokens, fitScale } from "../../../../protocol/image-tokens.ts";

type Params = ParsedParams<"screenshot.full_page">;

interface Metrics {
  x: number;
  y: number;
  width: number;
  viewHeight: number;
  height: number;
  dpr: number;
}

const MEASURE = `(() => {
  const el = document.scrollingElement || document.documentElement;
  return JSON.stringify({ x: scrollX, y: scrollY, width: document.documentElement.clientWidth, viewHeight: innerHeight, height: el.scrollHeight, dpr: devicePixelRatio });
})()`;

/** Scrolls (instantly, whatever the page's scroll-behavior) and waits two frames for it to be painted. */
const scrollTo = (y: number) => `new Promise((resolve) => {
  scrollTo({ left: scrollX, top: ${y}, behavior: "instant" });
  const done = () => resolve(JSON.stringify({ y: scrollY, view: innerHeight, height: (document.scrollingElement || document.documentElement).scrollHeight }));
  let frames = 0;
  const tick = () => (++frames >= 2 ? done() : requestAnimationFrame(tick));
  requestAnimationFrame(tick);
  setTimeout(done, 200);
})`;

/** follow: resolves with the new height once the page grows past `height`, or with it unchanged after `quiet` ms. */
const grown = (height: number, quiet: number) => `new Promise((resolve) => {
  const el = document.scrollingElement || document.documentElement;
  const start = performance.now();
  const check = () => {
    if (el.scrollHeight > ${height} || performance.now() - start > ${quiet}) return resolve(el.scrollHeight);
    setTimeout(check, 50);
  };
  check();
})`;

/** Aborts the capture on what must end it; `check()` also re-checks the session's scope. */
function watchTab(p: Params, tabId: number, windowId: number, mainFrame: string, signal: AbortSignal) {
  const ac = new AbortController();
  const stop = (err: BskError) => {
    if (!ac.signal.aborted) ac.abort(err);
  };
  const onCallAbort = () =>
    stop(signal.reason instanceof BskError ? signal.reason : new BskError("cancelled", "the capture was cancelled"));
  signal.addEventListener("abort", onCallAbort, { once: true });
  const navigated = (url: string) =>
    stop(
      new BskError("cancelled", `the tab navigated (${url}) during the full-page capture; no image was written`, {
        hint: "Wait for the page to settle (bsk wait-for), then capture again.",
        data: { reason: "capture_navigated", url },
      }),
    );
  const off = subscribe(
    tabId,
    (m, ev) => {
      if (m === "Page.frameNavigated" && !ev.frame?.parentId) navigated(String(ev.frame?.url ?? ""));
      else if (m === "Page.navigatedWithinDocument" && ev.frameId === mainFrame) navigated(String(ev.url ?? ""));
    },
    () => stop(closed(tabId)),
  );
  const onRemoved = (id: number) => {
    if (id === tabId) stop(closed(tabId));
  };
  const onActivated = (info: { tabId: number; windowId: number }) => {
    if (info.windowId === windowId && info.tabId !== tabId) {
      stop(
        new BskError(
          "cancelled",
          `tab ${tabId} stopped being the active tab of its window during the full-page capture; no image was written`,
          {
            hint: "Leave the tab in front while it is captured, then capture again.",
            data: { reason: "capture_deactivated" },
          },
        ),
      );
    }
  };
  browser.tabs.onRemoved.addListener(onRemoved);
  browser.tabs.onActivated.addListener(onActivated);
  return {
    signal: ac.signal,
    async check(): Promise<void> {
      if (ac.signal.aborted) throw ac.signal.reason;
      try {
        await resolveTab(p);
      } catch (err) {
        stop(err instanceof BskError ? err : closed(tabId));
        throw ac.signal.reason;
      }
    },
    dispose(): void {
      signal.removeEventListener("abort", onCallAbort);
      off();
      browser.tabs.onRemoved.removeListener(onRemoved);
      browser.tabs.onActivated.removeListener(onActivated);
    },
  };
}

function closed(tabId: number): BskError {
  return new BskError("not_found", `tab ${tabId} closed during the full-page capture; no image was written`, {
    data: { reason: "tab_closed", tab_id: tabId },
  });
}

async function evalJson<T>(world: World, expression: string, signal: AbortSignal): Promise<T> {
  const r = await sendTo(
    world.target,
    "Runtime.evaluate",
    { expression, contextId: world.contextId, awaitPromise: true, returnByValue: true },
    signal,
  );
  const v = r.result?.value;
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}

/** Rows [top, top+height) of the page (CSS px, in the viewport now) as RGBA pixels, at `scale` (CDP clip scale). */
async function captureRows(tabId: number, m: Metrics, top: number, height: number, scale: number, signal: AbortSignal) {
  const shot = await painted(
    tabId,
    "the full-page screenshot",
    send<{ data: string }>(
      tabId,
      "Page.captureScreenshot",
      { format: "png", fromSurface: true, clip: { x: m.x, y: top, width: m.width, height, scale } },
      signal,
    ),
    signal,
  );
  const blob = await (await fetch(`data:image/png;base64,${shot.data}`)).blob();
  const bitmap = await createImageBitmap(blob);
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext("2d")!;
    ctx.drawImage(bitmap, 0, 0);
    return { width: bitmap.width, height: bitmap.height, rgba: ctx.getImageData(0, 0, bitmap.width, bitmap.height).data };
  } finally {
    bitmap.close();
  }
}

export async function fullPage(p: Params, callSignal: AbortSignal, progress?: Progress): Promise<Result<"screenshot.full_page">> {
  const { tabId, tab } = await resolveTab(p);
  if (!tab.active) await browser.tabs.update(tabId, { active: true });
  const mainFrame = await mainFrameId(tabId, callSignal);
  const guard = watchTab(p, tabId, tab.windowId, mainFrame, callSignal);
  const signal = guard.signal;
  const world = await worldOf({ tabId }, mainFrame, signal);
  const start = await evalJson<Metrics>(world, MEASURE, signal);
  const showOverlays = await hideOverlays(tabId);
  const dpr = start.dpr || 1;
  const edge = p.tiles ? (p.max_edge ?? CLAUDE_LONG_EDGE) : p.max_edge;
  const fit = fitScale(start.width, p.tiles ? 0 : Math.min(start.height, p.max_height), dpr, edge);
  // Without tiles the image's height is bounded too: `follow` stops at the CSS height that makes it that tall.
  const edgeHeight = edge && !p.tiles ? Math.floor(edge / (dpr * fit)) : Number.POSITIVE_INFINITY;
  const cap = Math.min(p.max_height, edgeHeight);
  let out: TransferOut | null = null;
  let encoder: RowEncoder | TiledPng | null = null;
  try {
    out = await TransferOut.begin(p.session_id, "full-page.png", "image/png", signal);
    if (!p.tiles) await out.push(new Uint8Array(PNG_HEAD_BYTES));
    const limit = Math.min(cap, p.scope === "current" ? start.height : cap);
    let height = start.height;
    let captured = 0;
    let tiles = 0;
    let scale = 1;
    for (;;) {
      while (captured < Math.min(height, limit)) {
        await guard.check();
        const at = await evalJson<{ y: number; view: number; height: number }>(world, scrollTo(captured), signal);
        if (p.scope === "follow") height = Math.max(height, at.height);
        // The viewport as it is now: a bar appearing in the window can change it by a few pixels mid-capture.
        const bottom = Math.min(at.y + at.view, height, limit);
        // The page cannot scroll to where the next rows are (it shrank, or scrolls inside an element): stop there,
        // unless (follow) it grows.
        if (at.y > captured || bottom <= captured) break;
        const tile = await captureRows(tabId, start, captured, bottom - captured, fit, signal);
        if (!encoder) {
          scale = tile.width / start.width;
          encoder = p.tiles ? new TiledPng(tile.width, edge!, out) : new RowEncoder(tile.width, (b) => out!.push(b));
        }
        if (tile.width !== encoder.width) {
          throw new BskError("cdp_failed", "the page's width changed during the full-page capture; no image was written", {
            data: { reason: "capture_resized" },
          });
        }
        const rows = Math.min(tile.height, Math.round((bottom - captured) * scale));
        await encoder.addRows(tile.rgba, rows);
        captured = bottom;
        tiles++;
        progress?.({ done: captured, ...(p.scope === "current" && { total: limit }), unit: "px", label: "capturing" });
      }
      if (p.scope !== "follow" || captured >= cap) break;
      const next = await raceAbort(
        sendTo(
          world.target,
          "Runtime.evaluate",
          { expression: grown(height, p.quiet_ms), contextId: world.contextId, awaitPromise: true, returnByValue: true },
          signal,
        ),
        signal,
      );
      const newHeight = Number(next.result?.value ?? height);
      if (newHeight <= height) break;
      height = newHeight;
    }
    await guard.check();
    if (!encoder) throw new BskError("unsupported", "the page has nothing to capture (zero height)", { data: { reason: "no_box" } });
    await encoder.end();
    const width = encoder.width;
    if (!p.tiles) await out.push(PNG_END);
    const finished = await out.finish(p.tiles ? undefined : pngHead(width, encoder.rows));
    const images = encoder instanceof TiledPng ? encoder.tiles : undefined;
    return {
      tab_id: tabId,
      format: "png",
      width,
      height: encoder.rows,
      bytes: finished.size,
      sha256: finished.sha256,
      tiles,
      scale: Math.round(scale * 1000) / 1000,
      claude_tokens: images ? images.reduce((n, t) => n + t.claude_tokens, 0) : claudeImageTokens(width, encoder.rows),
      stopped: captured >= p.max_height ? "max_height" : captured >= edgeHeight && captured < height ? "max_edge" : "end",
      ...(images && {
        images: images.map(({ row, ...t }) => ({ ...t, x: Math.round(start.x), y: Math.round(row / scale) })),
      }),
      transfer_id: out.transferId,
    };
  } catch (err) {
    encoder?.abort();
    out?.release();
    if (signal.aborted && signal.reason instanceof BskError) throw signal.reason;
    // The page can go before its navigation event arrives: the call in flight fails with "navigated or closed".
    if (
      err instanceof BskError &&
      /navigated or closed|context was destroyed|Cannot find context|Not attached to an active page/i.test(
        String(err.data?.cdp_message ?? ""),
      )
    ) {
      throw new BskError("cancelled", "the tab navigated during the full-page capture; no image was written", {
        hint: "Wait for the page to settle (bsk wait-for), then capture again.",
        data: { reason: "capture_navigated" },
      });
    }
    throw err;
  } finally {
    guard.dispose();
    await showOverlays().catch(() => undefined);
    if (!signal.aborted || !(signal.reason instanceof BskError && signal.reason.data?.reason === "capture_navigated")) {
      await evalJson(world, `(scrollTo({ left: ${start.x}, top: ${start.y}, behavior: "instant" }), "")`, AbortSignal.timeout(2000)).catch(
        () => undefined,
      );
    }
  }
}
