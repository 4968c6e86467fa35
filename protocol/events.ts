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
} as const;

export type EventName = keyof typeof EVENTS;
