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
 *
 * Every click and press waits until the strip stands still (stripStill): while it animates, a click hits where a tab
 * is passing and a press starts no drag. The browser tells when it is still; no pause is guessed.
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

const activeTab = (strip: Strip): Promise<number> =>
  strip.chrome(`chrome.tabs.query({ active: true, windowId: ${strip.windowId} }).then((t) => t[0].id)`);

/**
 * Whether a drag session is open: while one is, the browser refuses every tab-strip edit ("user may be dragging a tab").
 * The edit asked is a move of the first tab to where it is, which changes nothing (and starts no animation).
 */
const dragSession = (strip: Strip): Promise<boolean> =>
  strip.chrome(
    `chrome.tabs.query({ windowId: ${strip.windowId}, index: 0 }).then(([t]) => chrome.tabs.move(t.id, { index: 0 })).then(() => false, (e) => /dragging/.test(String(e)))`,
  );

/**
 * Press and hold at x, made sure the browser took the press: the last tab of the window (not `tabId`) is made active
 * first, a press on another tab makes that one active. Says which tab the press hit and whether it opened a drag
 * session: the strip opens none while it animates (Chromium's TabStrip::MaybeStartDrag returns when IsAnimating(),
 * "during an animation tabs are being resized").
 */
async function pressOn(strip: Strip, x: number, tabId: number): Promise<{ hit: number; session: boolean }> {
  const other: number = await strip.chrome(
    `chrome.tabs.query({ windowId: ${strip.windowId} }).then((ts) => ts.filter((t) => t.id !== ${tabId}).at(-1).id)`,
  );
  await strip.chrome(`chrome.tabs.update(${other}, { active: true })`);
  const { left, top } = await origin(strip);
  xdotool(strip, ["mousemove", String(left + x), String(top + STRIP_Y), "mousedown", "1"]);
  const hit = await until(`the press at x=${x} (meant for tab ${tabId})`, async () => {
    const now = await activeTab(strip);
    return now !== other && now;
  });
  return { hit, session: await dragSession(strip) };
}

/** Release the button; when a drag session was open, until the browser has closed it. */
async function release(strip: Strip, session: boolean): Promise<void> {
  xdotool(strip, ["mouseup", "1"]);
  if (session) await until("the drag session to close", async () => !(await dragSession(strip)));
}

/**
 * Until the tab strip stands still. It animates after a tab moves, a group collapses or expands, a drop lands, and
 * while it does, a click hits where a tab is passing and a press drags nothing. The browser's own test: a press on
 * the first tab (the home tab until the last drag puts another there; never in a group, its left part clear of its
 * close button) hits it and opens a drag session only when the strip is not animating; released without motion it
 * is a click on that tab.
 */
async function stripStill(strip: Strip): Promise<void> {
  const first: { id: number; groupId: number } = await strip.chrome(
    `chrome.tabs.query({ windowId: ${strip.windowId}, index: 0 }).then(([t]) => ({ id: t.id, groupId: t.groupId }))`,
  );
  if (first.groupId !== -1) throw new Error(`the first tab of the strip (${first.id}) is in a group`);
  await until("the tab strip to stand still", async () => {
    const { hit, session } = await pressOn(strip, FIRST_TAB_X + 40, first.id);
    await release(strip, session);
    return hit === first.id && session;
  });
}

/**
 * What a click at x (relative to the window) hits: the tab it makes active, -1 for a group header (expanded again at
 * once, then until the strip stands still), or null for nothing. The home tab is made active first, so any other tab's
 * click is a change the browser reports; the caller keeps x off it. "Nothing" is known only by no change within a second (a
 * loaded machine may take that long to report a click).
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
      await stripStill(strip);
      return -1;
    }
    const now = await activeTab(strip);
    if (now !== home) return now;
    if (Date.now() > deadline) return null;
  }
}

/** The first x (relative to the window) from `fromX` rightwards where a click makes `tabId` active, in a still strip. */
export async function findTab(strip: Strip, tabId: number, fromX: number, limit = 1200): Promise<number> {
  await stripStill(strip);
  // Over a group header (each click collapses and expands the group) in larger steps: a tab is 235 px wide.
  for (let x = fromX, hit = null as number | null; x < limit; x += hit === -1 ? 24 : 8) {
    hit = await clickAt(strip, x);
    if (hit === tabId) return x;
  }
  throw new Error(`tab ${tabId} not found in the tab strip from x=${fromX}`);
}

/**
 * Press on `tabId` at x1, move in small steps to x2, release: a drag of that tab in the strip. It starts when the strip
 * stands still (or the press would drag nothing) and ends when the drop has landed and the strip stands still again.
 */
export async function dragInStrip(strip: Strip, tabId: number, x1: number, x2: number): Promise<void> {
  await stripStill(strip);
  const { hit, session } = await pressOn(strip, x1, tabId);
  if (hit !== tabId || !session) {
    await release(strip, session);
    throw new Error(`a press at x=${x1} in a still tab strip hit tab ${hit} (meant ${tabId}), drag session: ${session}`);
  }
  const { left, top } = await origin(strip);
  const y = String(top + STRIP_Y);
  const steps = 16;
  for (let i = 1; i <= steps; i++) {
    xdotool(strip, ["mousemove", String(Math.round(left + x1 + ((x2 - x1) * i) / steps)), y]);
    // The strip animates each move (the dragged tab slides); a person's drag takes this long too.
    await Bun.sleep(20);
  }
  await release(strip, true);
  await stripStill(strip);
}
