import { z } from "zod";
import { method, sessionParam, tabParams } from "../define.ts";

export const DEVICE_PRESETS = ["iphone-14", "iphone-se", "pixel-7", "galaxy-s23", "ipad-mini", "ipad-pro", "desktop-1080p"] as const;

/** How the page sees the device: emulation per tab, and the Agent Window's size. */
export const emulationMethods = {
  emulate: method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "tab",
    description: "Emulate a device (preset) or set viewport size, pixel ratio, mobile, touch and user agent; off restores.",
    params: () =>
      z.object({
        ...tabParams(),
        device: z.enum(DEVICE_PRESETS).optional().describe("Device preset (its size, pixel ratio, mobile, touch and user agent)"),
        width: z.number().int().min(1).max(7680).optional().describe("Viewport width in CSS px"),
        height: z.number().int().min(1).max(7680).optional().describe("Viewport height in CSS px"),
        dpr: z.number().min(0.5).max(5).optional().describe("Device pixel ratio"),
        mobile: z.boolean().optional().describe("Mobile viewport (meta viewport, overlay scrollbars)"),
        touch: z.boolean().optional().describe("Touch events"),
        user_agent: z.string().max(512).optional().describe("User agent string"),
        off: z.boolean().default(false).describe("Clear all emulation"),
      }),
    result: () =>
      z.object({
        tab_id: z.number().int(),
        emulating: z.boolean(),
        viewport: z.object({ width: z.number(), height: z.number(), dpr: z.number(), mobile: z.boolean() }),
        touch: z.boolean(),
        user_agent: z.string(),
      }),
    cli: {
      words: ["emulate"],
      flags: {
        device: { description: "Device preset" },
        width: { description: "Viewport width" },
        height: { description: "Viewport height" },
        dpr: {},
        mobile: {},
        touch: {},
        ua: { param: "user_agent", description: "User agent string" },
        off: {},
      },
      examples: ["bsk emulate --device iphone-14 --session $S", "bsk emulate --off --session $S"],
    },
  }),

  "window.resize": method({
    owner: "extension",
    effect: "BrowserMutation",
    scope: "session",
    description: "Resize the session's Agent Window.",
    params: () =>
      z.object({
        ...sessionParam(),
        width: z.number().int().min(100).max(7680).describe("Window width in px"),
        height: z.number().int().min(100).max(7680).describe("Window height in px"),
      }),
    result: () =>
      z.object({
        window_id: z.number().int(),
        width: z.number().int(),
        height: z.number().int(),
        viewport: z.object({ width: z.number(), height: z.number() }).optional(),
      }),
    cli: {
      words: ["window", "resize"],
      flags: {
        width: {},
        height: {},
      },
    },
  }),
};
