/**
 * Element captures for image-coordinate input: `screenshot --ref` keeps, per session, where the element was and
 * what part of it the picture shows; `click --capture ID --image-x X --image-y Y` maps a pixel of the picture back to
 * a point of the element, only while the element still has that box (actionability.ts checks it in the page).
 */
import { BskError } from "../../../protocol/errors.ts";
import type { Box } from "./actionability.ts";

export interface Capture {
  sessionId: string;
  tabId: number;
  /** The ref or selector the screenshot was taken of (resolved again to click). */
  target: string;
  frameId: string;
  /** The element's border box in its frame's viewport at capture time, CSS px. */
  box: Box;
  frameOffset: { x: number; y: number };
  /** What the picture shows, in the top-level viewport, CSS px. */
  clip: Box;
  image: { width: number; height: number };
  at: number;
}

const TTL_MS = 10 * 60_000;
const PER_SESSION = 20;
const captures = new Map<string, Capture>();

export function keepCapture(c: Omit<Capture, "at">): string {
  const now = Date.now();
  for (const [id, old] of captures) if (now - old.at > TTL_MS) captures.delete(id);
  const mine = [...captures].filter(([, old]) => old.sessionId === c.sessionId);
  for (const [id] of mine.slice(0, Math.max(0, mine.length - PER_SESSION + 1))) captures.delete(id);
  const id = `c${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16).padStart(8, "0")}`;
  captures.set(id, { ...c, at: now });
  return id;
}

/** The session's own capture, or not_found: another session's id is the same as an unknown one. */
export function captureOf(sessionId: string, id: string): Capture {
  const c = captures.get(id);
  if (!c || c.sessionId !== sessionId || Date.now() - c.at > TTL_MS) {
    throw new BskError("not_found", `no capture ${JSON.stringify(id)} in this session`, {
      hint: "Take one with bsk screenshot --ref @eN (captures last 10 minutes) and use the id it prints.",
      data: { reason: "capture_not_found", capture: id },
    });
  }
  return c;
}

/** The point of the element (from its box's top-left, CSS px) that image pixel (x, y) shows. */
export function pointOf(c: Capture, x: number, y: number): { x: number; y: number } {
  if (x > c.image.width || y > c.image.height) {
    throw new BskError("invalid_params", `(${x}, ${y}) is outside the capture's image (${c.image.width}×${c.image.height} px)`, {
      hint: "Pick a point inside the picture: --image-x 0..width, --image-y 0..height.",
      data: { reason: "outside_image", image: c.image },
    });
  }
  return {
    x: c.clip.x - (c.box.x + c.frameOffset.x) + (x * c.clip.width) / c.image.width,
    y: c.clip.y - (c.box.y + c.frameOffset.y) + (y * c.clip.height) / c.image.height,
  };
}
