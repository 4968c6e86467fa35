/**
 * Dragging one element onto another with real mouse input. An HTML5 draggable starts a native drag, which CDP
 * cannot drive with mouse events alone: drags are intercepted (Input.setInterceptDrags), and the intercepted drag
 * data is dropped on the target with Input.dispatchDragEvent. Anything else (mouse- or pointer-based sortables)
 * gets a pressed move in steps, each delivered in its own frame so handlers see every step.
 */
import { raceAbort } from "../../shared/abort.ts";
import { send, subscribe } from "../../cdp/debugger.ts";
import { moveTo, press, release } from "./mouse.ts";
import { callOn } from "../../cdp/page-call.ts";
import type { ResolvedTarget } from "../../cdp/refs/target.ts";

const STEPS = 5;
/** A native drag starts within a frame or two of the pressed move; past this the drag is treated as mouse-based. */
const DRAG_START_CAP_MS = 500;

const DRAGGABLE_FN = `function () {
  for (let n = this; n; n = n.parentElement) {
    const d = n.getAttribute && n.getAttribute("draggable");
    if (d === "true") return true;
    if (d === "false") return false;
    if ((n.localName === "a" && n.hasAttribute("href")) || n.localName === "img") return true;
  }
  return false;
}`;

export function isDraggable(rt: ResolvedTarget, signal: AbortSignal): Promise<boolean> {
  return callOn<boolean>(rt, DRAGGABLE_FN, [], signal);
}

type Point = { x: number; y: number };

/** Resolves with the intercepted drag data, or null when no native drag started in time. */
function interceptedDrag(tabId: number, signal: AbortSignal): { data: Promise<unknown | null>; stop: () => void } {
  let off = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const data = raceAbort(
    new Promise<unknown | null>((resolve) => {
      off = subscribe(tabId, (method, p) => {
        if (method === "Input.dragIntercepted") resolve(p.data);
      });
      timer = setTimeout(() => resolve(null), DRAG_START_CAP_MS);
    }),
    signal,
  );
  return {
    data,
    stop: () => {
      off();
      clearTimeout(timer);
    },
  };
}

/**
 * Drags from `from` to `to`. `beforeDrop` runs once the drag is under way and right before the drop (a page can move
 * things on dragstart or pointerdown: another site's frame slid over the drop target); when it throws, nothing is
 * dropped there: an HTML5 drag is cancelled, a pressed move is carried back and released where it started.
 */
export async function drag(
  tabId: number,
  from: Point,
  to: Point,
  html5: boolean,
  signal: AbortSignal,
  beforeDrop: () => Promise<void> = async () => {},
): Promise<void> {
  // Past a few px of pressed movement the page (or the browser) sees a drag.
  const nudge = { x: from.x + (to.x > from.x ? 6 : -6), y: from.y + (to.y > from.y ? 6 : -6) };
  if (html5) {
    await send(tabId, "Input.setInterceptDrags", { enabled: true }, signal);
    const watch = interceptedDrag(tabId, signal);
    try {
      await Promise.all([moveTo(tabId, from.x, from.y, [], signal), press(tabId, "left", 1, [], signal)]);
      await moveTo(tabId, nudge.x, nudge.y, [], signal);
      const data = await watch.data;
      if (data !== null) {
        try {
          await beforeDrop();
        } catch (err) {
          await send(tabId, "Input.dispatchDragEvent", { type: "dragCancel", x: from.x, y: from.y, data, modifiers: 0 }, signal).catch(
            () => undefined,
          );
          await Promise.all([moveTo(tabId, from.x, from.y, [], signal), release(tabId, "left", 1, [], signal)]);
          throw err;
        }
        for (const type of ["dragEnter", "dragOver", "drop"] as const) {
          await send(tabId, "Input.dispatchDragEvent", { type, x: to.x, y: to.y, data, modifiers: 0 }, signal);
        }
        await Promise.all([moveTo(tabId, to.x, to.y, [], signal), release(tabId, "left", 1, [], signal)]);
        return;
      }
    } finally {
      watch.stop();
      void send(tabId, "Input.setInterceptDrags", { enabled: false }).catch(() => undefined);
    }
    // No native drag after all: finish as a mouse drag from where the pointer is.
  } else {
    await Promise.all([moveTo(tabId, from.x, from.y, [], signal), press(tabId, "left", 1, [], signal)]);
    await moveTo(tabId, nudge.x, nudge.y, [], signal);
  }
  for (let i = 1; i <= STEPS; i++) {
    await moveTo(tabId, nudge.x + ((to.x - nudge.x) * i) / STEPS, nudge.y + ((to.y - nudge.y) * i) / STEPS, [], signal);
  }
  try {
    await beforeDrop();
  } catch (err) {
    await moveTo(tabId, from.x, from.y, [], signal);
    await release(tabId, "left", 1, [], signal);
    throw err;
  }
  await release(tabId, "left", 1, [], signal);
}
