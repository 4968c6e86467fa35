/** Events on the daemon↔extension link (extension → daemon unless noted). */
import { z } from "zod";

export const EVENTS = {
  /** Liveness every heartbeat_ms (default 20 s). */
  "system.heartbeat": () => z.object({ sessions: z.number().int().optional() }),
  /** A session ended on the browser side (the person closed its window, stopped it, ...). */
  "session.ended": () =>
    z.object({
      session_id: z.string(),
      reason: z.string(),
      lost_tab_ids: z.array(z.number().int()).default([]),
    }),
  /** A tab joined a session (created by it, or opened by one of its tabs). */
  "tab.opened": () =>
    z.object({ session_id: z.string(), tab_id: z.number().int(), opener_tab_id: z.number().int().optional(), url: z.string() }),
  "tab.closed": () => z.object({ session_id: z.string(), tab_id: z.number().int() }),
  "navigation": () =>
    z.object({ session_id: z.string(), tab_id: z.number().int(), url: z.string(), cause: z.string().optional() }),
  /** A JavaScript dialog opened in a session's tab: page actions fail with dialog_pending until it is answered. */
  "dialog.opened": () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      type: z.enum(["alert", "confirm", "prompt", "beforeunload"]),
      message: z.string(),
      url: z.string(),
    }),
  /** The dialog was answered, by the agent (bsk dialog) or by the person. */
  "dialog.closed": () => z.object({ session_id: z.string(), tab_id: z.number().int(), accepted: z.boolean() }),
} as const;

export type EventName = keyof typeof EVENTS;
