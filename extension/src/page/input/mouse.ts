/**
 * Real mouse input through CDP, always to the tab's top-level target in top-level viewport CSS px.
 * Events are pipelined: a mouseMoved awaited on its own waits for the next animation frame (~16 ms), while a
 * press right behind it flushes the queued move, so a whole click costs about one relay round trip.
 * The last position and the held buttons are kept per tab: hover stays put for the next call, and
 * mouse down / move / up carry the buttons a page's pointer handlers check.
 */
import { send } from "../../cdp/debugger.ts";
import { modifierBits, type Modifier } from "./keys.ts";

export type Button = "left" | "middle" | "right";

const BUTTON_BIT: Record<Button, number> = { left: 1, right: 2, middle: 4 };

interface MouseState {
  x: number;
  y: number;
  /** Bit field of held buttons (left 1, right 2, middle 4). */
  buttons: number;
}

const state = new Map<number, MouseState>();

function mouse(tabId: number): MouseState {
  let s = state.get(tabId);
  if (!s) state.set(tabId, (s = { x: 0, y: 0, buttons: 0 }));
  return s;
}

export function mousePosition(tabId: number): { x: number; y: number } {
  const s = mouse(tabId);
  return { x: s.x, y: s.y };
}

/** The tab's document went away (detach): nothing is held any more. */
export function forgetMouse(tabId: number): void {
  state.delete(tabId);
}

function heldButton(buttons: number): Button | "none" {
  if (buttons & 1) return "left";
  if (buttons & 2) return "right";
  if (buttons & 4) return "middle";
  return "none";
}

type Sent = Promise<unknown>;

/** Sends one mouse event without waiting for it; the caller awaits the batch. */
function dispatch(tabId: number, params: Record<string, unknown>, signal?: AbortSignal): Sent {
  return send(tabId, "Input.dispatchMouseEvent", params, signal);
}

/** Queues a move (not awaited here: see the module comment). */
export function moveTo(tabId: number, x: number, y: number, modifiers: readonly Modifier[] = [], signal?: AbortSignal): Sent {
  const s = mouse(tabId);
  s.x = x;
  s.y = y;
  return dispatch(
    tabId,
    { type: "mouseMoved", x, y, modifiers: modifierBits(modifiers), buttons: s.buttons, button: heldButton(s.buttons) },
    signal,
  );
}

/** Moves in `steps` equal moves from the last position (drags, drawing). */
export function moveSteps(
  tabId: number,
  x: number,
  y: number,
  steps: number,
  modifiers: readonly Modifier[] = [],
  signal?: AbortSignal,
): Sent[] {
  const from = mousePosition(tabId);
  const sent: Sent[] = [];
  for (let i = 1; i <= steps; i++) {
    sent.push(moveTo(tabId, from.x + ((x - from.x) * i) / steps, from.y + ((y - from.y) * i) / steps, modifiers, signal));
  }
  return sent;
}

export function press(tabId: number, button: Button, clickCount: number, modifiers: readonly Modifier[] = [], signal?: AbortSignal): Sent {
  const s = mouse(tabId);
  s.buttons |= BUTTON_BIT[button];
  return dispatch(
    tabId,
    { type: "mousePressed", x: s.x, y: s.y, button, buttons: s.buttons, clickCount, modifiers: modifierBits(modifiers) },
    signal,
  );
}

export function release(
  tabId: number,
  button: Button,
  clickCount: number,
  modifiers: readonly Modifier[] = [],
  signal?: AbortSignal,
): Sent {
  const s = mouse(tabId);
  s.buttons &= ~BUTTON_BIT[button];
  return dispatch(
    tabId,
    { type: "mouseReleased", x: s.x, y: s.y, button, buttons: s.buttons, clickCount, modifiers: modifierBits(modifiers) },
    signal,
  );
}

/** Move, then `count` press/release pairs (clickCount 1..count, so count 2 also fires dblclick), all pipelined. */
export async function click(
  tabId: number,
  x: number,
  y: number,
  opts: { button?: Button; count?: number; modifiers?: readonly Modifier[] } = {},
  signal?: AbortSignal,
): Promise<void> {
  const button = opts.button ?? "left";
  const modifiers = opts.modifiers ?? [];
  const s = mouse(tabId);
  // Already there (a repeated click): the press itself carries the position.
  const sent: Sent[] = s.x === x && s.y === y && s.buttons === 0 ? [] : [moveTo(tabId, x, y, modifiers, signal)];
  for (let i = 1; i <= (opts.count ?? 1); i++) {
    sent.push(press(tabId, button, i, modifiers, signal), release(tabId, button, i, modifiers, signal));
  }
  await Promise.all(sent);
}

/** A wheel turn at a point (the pointer moves there first). */
export async function wheel(
  tabId: number,
  x: number,
  y: number,
  dx: number,
  dy: number,
  modifiers: readonly Modifier[] = [],
  signal?: AbortSignal,
): Promise<void> {
  const moved = moveTo(tabId, x, y, modifiers, signal);
  const turned = dispatch(tabId, { type: "mouseWheel", x, y, deltaX: dx, deltaY: dy, modifiers: modifierBits(modifiers) }, signal);
  await Promise.all([moved, turned]);
}
