/**
 * Device presets for `emulate --device`: viewport, pixel ratio, mobile, touch and the user agent the real device's
 * default browser sends. Android presets send Chrome's reduced UA ("Android 10; K"), as a real Chrome there does,
 * with the running browser's major version. Pure (no chrome.*).
 */
import type { DEVICE_PRESETS } from "../../../../protocol/methods/emulation.ts";

export type DeviceName = (typeof DEVICE_PRESETS)[number];

export interface UaMetadata {
  platform: string;
  platformVersion: string;
  architecture: string;
  model: string;
  mobile: boolean;
}

export interface Device {
  width: number;
  height: number;
  dpr: number;
  mobile: boolean;
  touch: boolean;
  /** null: the browser's own user agent. */
  userAgent: (chromeMajor: string) => string | null;
  /** UA client hints for Chrome-based devices; Safari sends none. */
  metadata?: UaMetadata;
}

const IOS_SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
/** iPadOS Safari asks for desktop sites by default, so it presents itself as a Mac. */
const IPAD_SAFARI = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
const androidChrome = (major: string) =>
  `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`;
const android = (model: string): UaMetadata => ({ platform: "Android", platformVersion: "14.0.0", architecture: "", model, mobile: true });

export const DEVICES: Record<DeviceName, Device> = {
  "iphone-14": { width: 390, height: 844, dpr: 3, mobile: true, touch: true, userAgent: () => IOS_SAFARI },
  "iphone-se": { width: 375, height: 667, dpr: 2, mobile: true, touch: true, userAgent: () => IOS_SAFARI },
  "pixel-7": { width: 412, height: 915, dpr: 2.625, mobile: true, touch: true, userAgent: androidChrome, metadata: android("Pixel 7") },
  "galaxy-s23": { width: 360, height: 780, dpr: 3, mobile: true, touch: true, userAgent: androidChrome, metadata: android("SM-S911B") },
  "ipad-mini": { width: 744, height: 1133, dpr: 2, mobile: true, touch: true, userAgent: () => IPAD_SAFARI },
  "ipad-pro": { width: 1024, height: 1366, dpr: 2, mobile: true, touch: true, userAgent: () => IPAD_SAFARI },
  "desktop-1080p": { width: 1920, height: 1080, dpr: 1, mobile: false, touch: false, userAgent: () => null },
};

/** What a tab is told to emulate; absent fields are not overridden. */
export interface EmulationState {
  width?: number;
  height?: number;
  dpr?: number;
  mobile?: boolean;
  touch?: boolean;
  /** "" restores the browser's own. */
  userAgent?: string;
  metadata?: UaMetadata;
}

export interface EmulateRequest {
  device?: DeviceName;
  width?: number;
  height?: number;
  dpr?: number;
  mobile?: boolean;
  touch?: boolean;
  user_agent?: string;
}

/**
 * The tab's next state: the previous one, then the device's fields, then the explicit ones (repeated calls merge
 * field by field, so `--ua X` after `--device iphone-14` keeps the device's viewport).
 */
export function mergeEmulation(prev: EmulationState, req: EmulateRequest, chromeMajor: string): EmulationState {
  const next: EmulationState = { ...prev };
  if (req.device) {
    const d = DEVICES[req.device];
    Object.assign(next, { width: d.width, height: d.height, dpr: d.dpr, mobile: d.mobile, touch: d.touch });
    next.userAgent = d.userAgent(chromeMajor) ?? "";
    next.metadata = d.metadata;
  }
  if (req.width !== undefined) next.width = req.width;
  if (req.height !== undefined) next.height = req.height;
  if (req.dpr !== undefined) next.dpr = req.dpr;
  if (req.mobile !== undefined) next.mobile = req.mobile;
  if (req.touch !== undefined) next.touch = req.touch;
  if (req.user_agent !== undefined) {
    next.userAgent = req.user_agent;
    next.metadata = undefined;
  }
  return next;
}

export function touchesMetrics(s: EmulationState): boolean {
  return s.width !== undefined || s.height !== undefined || s.dpr !== undefined || s.mobile !== undefined;
}
