/**
 * The person's mouse in a headed browser's tab strip (Xvfb + xdotool): real X input, as a person drags tabs.
 *
 * Where things are is found by real clicks, not guessed from pixels: a click on a tab makes it the window's active
 * tab (chrome.tabs says which), a click on a group's header collapses it (put back at once). A scan goes left to
 * right in small steps and stops at the first point of the tab it looks for, so it never reaches that tab's close
 * button; it starts where no close button can be (a tab's left part or a group header), which the caller knows from
 * the strip's order. Found on Chromium 14x–15x on Linux: the strip's row is 20 px below the window's top (the browser
 * draws its own frame without a window manager), tabs at full width are 235 px apart, the first one starts about
 * 40 px in (after the tab search button).
 */
import { until } from "./harness.ts";

export const STRIP_Y = 20;
export const TAB_PITCH = 235;
export const FIRST_TAB_X = 40;

export interface Strip {
  /** Runs chrome.* in an extension page of the person's (their hands for reading the browser's state). */
  chrome(expression: string): Promise<any>;
  display: string;
  windowId: number;
  /** A tab of the person's, first in the strip, clear of every drag (the hands' own page). */
  homeTab: number;
}

/** Whether real tab-strip input can run here. */
export function canDrag(): boolean {
  return Bun.which("Xvfb") !== null && Bun.which("xdotool") !== null;
}

function xdotool(strip: Strip, args: string[]): void {
  const r = Bun.spawnSync(["xdotool", ...args], { env: { ...process.env, DISPLAY: strip.display } });
  if (r.exitCode !== 0) throw new Error(`xdotool ${args.join(" ")}: ${r.stderr.toString()}`);
}

async function origin(strip: Strip): Promise<{ left: number; top: number }> {
  const win = await strip.chrome(`chrome.windows.get(${strip.windowId})`);
  return { left: win.left, top: win.top };
}

/**
 * What a click at x (relative to the window) hits: the tab it makes active, -1 for a group header (expanded again at
 * once), or null for nothing. The home tab is made active first, so any other tab's click is a change the browser reports;
 * the caller keeps x off it. "Nothing" is known only by no change within a second (a loaded machine may take that long to report a click).
 */
async function clickAt(strip: Strip, x: number): Promise<number | null> {
  const home = strip.homeTab;
  const { left, top } = await origin(strip);
  await strip.chrome(`chrome.tabs.update(${home}, { active: true })`);
  xdotool(strip, ["mousemove", String(left + x), String(top + STRIP_Y), "click", "1"]);
  const deadline = Date.now() + 1000;
  for (;;) {
    const collapsed: number[] = await strip.chrome(
      `chrome.tabGroups.query({ windowId: ${strip.windowId}, collapsed: true }).then((gs) => gs.map((g) => g.id))`,
    );
    if (collapsed.length) {
      for (const id of collapsed) await strip.chrome(`chrome.tabGroups.update(${id}, { collapsed: false })`);
      return -1;
    }
    const now: number = await strip.chrome(`chrome.tabs.query({ active: true, windowId: ${strip.windowId} }).then((t) => t[0].id)`);
    if (now !== home) return now;
    if (Date.now() > deadline) return null;
  }
}

/** The first x (relative to the window) from `fromX` rightwards where a click makes `tabId` active. */
export async function findTab(strip: Strip, tabId: number, fromX: number, limit = 1200): Promise<number> {
  for (let x = fromX; x < limit; x += 8) if ((await clickAt(strip, x)) === tabId) return x;
  throw new Error(`tab ${tabId} not found in the tab strip from x=${fromX}`);
}

/** Press at x1, move in small steps to x2, release: a drag of the tab under x1 in the strip. */
export async function dragInStrip(strip: Strip, x1: number, x2: number): Promise<void> {
  const { left, top } = await origin(strip);
  const y = String(top + STRIP_Y);
  xdotool(strip, ["mousemove", String(left + x1), y, "mousedown", "1"]);
  const steps = 16;
  for (let i = 1; i <= steps; i++) {
    xdotool(strip, ["mousemove", String(Math.round(left + x1 + ((x2 - x1) * i) / steps)), y]);
    // The strip animates each move (the dragged tab slides); a person's drag takes this long too.
    await Bun.sleep(20);
  }
  xdotool(strip, ["mouseup", "1"]);
  // The drop animates; until it ends the browser refuses every tab-strip edit ("user may be dragging a tab").
  await until("the drop to settle", () =>
    strip.chrome(`chrome.tabs.move(${strip.homeTab}, { index: 0 }).then(() => true, (e) => !/dragging/.test(String(e)))`),
  );
}
