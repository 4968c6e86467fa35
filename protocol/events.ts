/**
 * Events on the daemon↔extension link (extension → daemon unless noted). The extension numbers the events it sends
 * (frame `seq`, per `event_stream` of the handshake) and keeps them until the daemon's `system.ack`; a burst of one
 * kind within a short window may arrive as one event whose payload carries `count` (the payload is the last one's).
 */
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
      /** A finer cause, e.g. reason stopped_by_person with cause debugging_cancelled (the browser's debugging bar). */
      cause: z.string().optional(),
    }),
  /** A tab joined a session (created by it, or opened by one of its tabs). */
  "tab.opened": () =>
    z.object({ session_id: z.string(), tab_id: z.number().int(), opener_tab_id: z.number().int().optional(), url: z.string() }),
  "tab.closed": () => z.object({ session_id: z.string(), tab_id: z.number().int() }),
  /**
   * The person lent the session one of their tabs (`asked`: through the consent window; false: confirmation is off, or
   * `lent_by_drag`: they dragged it into the session's tab group, which is the consent).
   */
  "tab.borrowed": () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      url: z.string(),
      asked: z.boolean(),
      lent_by_drag: z.boolean().optional(),
    }),
  /**
   * A tab the person dragged into the session's group was refused, unread (`reason`: no_borrow, or a borrow rule's), and
   * put back where the drag began (`back_to`: its window, index and group, -1 for none; `fallback`: that window was
   * gone). `put_back: false`: it could not be moved out of the group (closed meanwhile, or the browser refused); it is
   * still not the session's.
   */
  "tab.lend_refused": () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      reason: z.string(),
      put_back: z.boolean(),
      back_to: z
        .object({ window_id: z.number().int(), index: z.number().int(), group_id: z.number().int(), fallback: z.boolean() })
        .optional(),
    }),
  /** The person took a tab back from the session by dragging it out of its group: its calls ended user_aborted. */
  "tab.taken_back": () => z.object({ session_id: z.string(), tab_id: z.number().int(), reason: z.string() }),
  /** A borrowed tab went back to the person (tab.return or the session's end). */
  "tab.returned": () => z.object({ session_id: z.string(), tab_id: z.number().int(), window_id: z.number().int(), fallback: z.boolean() }),
  navigation: () => z.object({ session_id: z.string(), tab_id: z.number().int(), url: z.string(), cause: z.string().optional() }),
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
  /**
   * The person took the session over: Take over (overlay or popup), or `cause: "input"`, their own click, key press,
   * touch or drag in its tab. The daemon marks the session taken_over, cancels its calls and refuses actions on and
   * reads of its pages (user_aborted, reason taken_over) until session.resume. `tab_id`: where they did it.
   */
  "session.takeover": () => z.object({ session_id: z.string(), tab_id: z.number().int().optional(), cause: z.enum(["input"]).optional() }),
  /** The person clicked Resume: the session is live again; refs from before the takeover stay stale. */
  "session.resume": () => z.object({ session_id: z.string(), tab_id: z.number().int().optional() }),
  /** A request-help call ended with this outcome (also the call's result). */
  "help.outcome": () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      outcome: z.enum(["completed", "continued", "cancelled", "timed_out", "disabled"]),
      note: z.string().default(""),
      title: z.string().optional(),
    }),
  /** Daemon → extension: every numbered event up to `seq` is recorded; the extension may forget them. */
  "system.ack": () => z.object({ seq: z.number().int().nonnegative() }),
  /** Daemon → extension: the op of held request `request_id` (meta.hold) is on disk; its input may go out. */
  "op.durable": () => z.object({ request_id: z.union([z.string().min(1).max(128), z.number().int()]) }),
  /** The page logged an error (console.error, console.assert) or threw uncaught. */
  "console.error": () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      text: z.string(),
      url: z.string().optional(),
      line: z.number().int().optional(),
    }),
  /** A request of the page failed (network error, blocked, cancelled) or was answered with HTTP ≥ 400. */
  "request.failed": () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      method: z.string(),
      url: z.string(),
      type: z.string(),
      status: z.number().int().nullable(),
      error: z.string().optional(),
    }),
  /**
   * The browser gave one of the session's tabs a new id (it discarded the tab's page: bsk does so to a page hung in a
   * script it could not stop, timeout reason hung_page_discarded). Calls use `tab_id` from now on.
   */
  "tab.replaced": () => z.object({ session_id: z.string(), tab_id: z.number().int(), replaced_tab_id: z.number().int() }),
  /** The tab's renderer crashed (the tab is still open, showing the browser's error page); its calls failed. */
  "tab.crashed": () => z.object({ session_id: z.string(), tab_id: z.number().int(), url: z.string().optional() }),
  /** Opt-in (--observe dom): what changed in the page's DOM during a frame, summarised. */
  "dom.mutations": () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      added: z.number().int(),
      removed: z.number().int(),
      attributes: z.number().int(),
      text: z.number().int(),
    }),
  /** Opt-in (--observe sockets): the page's own WebSocket connections. */
  "socket.opened": () => z.object({ session_id: z.string(), tab_id: z.number().int(), url: z.string() }),
  "socket.closed": () => z.object({ session_id: z.string(), tab_id: z.number().int(), url: z.string() }),
  "socket.error": () => z.object({ session_id: z.string(), tab_id: z.number().int(), url: z.string(), error: z.string() }),
  /** Opt-in (--observe visibility): the page became visible or hidden. */
  visibility: () => z.object({ session_id: z.string(), tab_id: z.number().int(), state: z.enum(["visible", "hidden"]) }),
  /** Opt-in (--observe perf): a performance entry of the page (navigation and resource timing). */
  perf: () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      entry_type: z.string(),
      name: z.string(),
      start_ms: z.number(),
      duration_ms: z.number(),
      transfer_size: z.number().optional(),
      initiator: z.string().optional(),
    }),
  /**
   * Something the browser asks the person that the agent can neither see nor answer: HTTP (or proxy) sign-in (bsk
   * cancels it in a session's tab: the page shows the site's 401), a permission prompt, opening another app
   * (external protocol), printing, a device chooser. The action that caused it fails with reason browser_prompt.
   */
  "browser.prompt": () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      kind: z.enum(["http_auth", "proxy_auth", "permission", "external_protocol", "print", "device_chooser"]),
      url: z.string(),
      /** The permission asked for (geolocation, notifications, camera, …), the auth realm and scheme, … */
      detail: z.record(z.string(), z.string()).default({}),
      /** cancelled: bsk said no for the person (HTTP auth); left_to_person: the browser's own prompt is up. */
      answer: z.enum(["cancelled", "left_to_person"]),
    }),
  /**
   * The stream has a gap here: events of the session that happened between `from` and `to` (ISO 8601) never
   * reached the daemon, at most `count` of them. `outbox_full`: more than the extension keeps while no daemon
   * listens; `worker_restart`: more than it holds for a tab while its service worker starts again.
   */
  "events.lost": () =>
    z.object({
      session_id: z.string(),
      count: z.number().int().positive(),
      from: z.string(),
      to: z.string(),
      reason: z.enum(["outbox_full", "worker_restart"]),
      tab_id: z.number().int().optional(),
    }),
  /**
   * A download a session's tab started (a click on an attachment or <a download> link, a page's script): bsk took its
   * bytes, never the person's Downloads folder. Sent when it starts (in_progress) and when it ends: complete (size and
   * sha256 of what bsk keeps; `bsk downloads save <download_id> --out FILE`) or failed (error).
   */
  download: () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      download_id: z.string(),
      url: z.string(),
      name: z.string(),
      mime: z.string().default(""),
      state: z.enum(["in_progress", "complete", "failed"]),
      size: z.number().int().optional(),
      sha256: z.string().optional(),
      error: z.string().optional(),
    }),
  /**
   * A request of a session was blocked: one to an origin outside its --allow-origin (navigation, frame or any request),
   * or (cause ask_first) one that may change something on the person's ask-first site, sent by a page of another site.
   */
  "origin.blocked": () =>
    z.object({
      session_id: z.string(),
      tab_id: z.number().int(),
      url: z.string(),
      kind: z.enum(["navigation", "frame", "request"]),
      cause: z.enum(["allow_origin", "ask_first"]).optional(),
      method: z.string().optional(),
    }),
} as const;

export type EventName = keyof typeof EVENTS;
