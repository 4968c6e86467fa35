import { z } from "zod";
import { method, wireMethod, SessionId, SessionInfo, SessionWhere, sessionParam } from "../define.ts";
import { normalizeOrigin } from "../origins.ts";
import { ObserveKinds } from "./history.ts";
import { NavigationResult } from "./navigation.ts";

/** The longest lease a session may ask for: it replaces the idle timeout, so it bounds how long an abandoned session lives. */
export const LEASE_MAX_MS = 3_600_000;

/** Session lifecycle: the daemon's public methods and its calls into the extension. */
export const sessionMethods = {
  "session.start": method({
    owner: "daemon",
    effect: "ControlPlane",
    scope: "none",
    description:
      "Start a session in a new Agent Window (or, with --where group, a tab group in the person's window); returns its session id.",
    params: () =>
      z.object({
        browser: z.string().optional().describe("Browser instance id or label (bsk browsers)"),
        focus: z.boolean().default(true).describe("Bring the Agent Window to the front"),
        launch: z
          .boolean()
          .default(false)
          .describe("No browser connected: start the person's installed browser (as bsk browser launch) and wait for it"),
        width: z.number().int().min(100).max(7680).optional().describe("Window width in px"),
        height: z.number().int().min(100).max(7680).optional().describe("Window height in px"),
        owner_pid: z.number().int().positive().optional().describe("End the session when this process exits"),
        name: z.string().max(80).optional().describe("A label for the task, shown to the person"),
        lease_ms: z
          .number()
          .int()
          .min(1000, "is shorter than 1s")
          .max(LEASE_MAX_MS, "is longer than 1h: a session whose agent vanished must not outlive it by more")
          .optional()
          .describe("End the session if no call renews it within this time (replaces the idle timeout)"),
        observe: ObserveKinds()
          .default([])
          .describe("Extra event streams: DOM mutation summaries, WebSockets, visibility changes, performance entries"),
        allow_origins: z
          .array(z.string().refine((o) => normalizeOrigin(o) !== null, "an origin is scheme://host[:port], e.g. https://example.com"))
          .max(64)
          .optional()
          .describe("Only these origins may load in the session's tabs (top-level and frames); others are blocked"),
        block_requests: z
          .boolean()
          .default(false)
          .describe("With allow_origins: block every request to other origins, not only navigations"),
        isolated: z
          .boolean()
          .default(false)
          .describe("An incognito window of its own: none of the person's cookies or logins; all discarded at the end"),
        where: SessionWhere()
          .default("window")
          .describe("group: a named tab group in the person's last-focused window instead of an Agent Window"),
        borrow: z.boolean().default(true).describe("false: refuse every tab the person lends the session"),
        confirm_writes: z
          .boolean()
          .default(false)
          .describe("Every page-changing call waits for the person's Allow in the pill (reads are not asked)"),
        url: z
          .string()
          .min(1)
          .optional()
          .describe("Open this page in the first tab, as navigate does; if it does not load, the session ends with the navigation's error"),
      }),
    result: () =>
      z.object({
        session_id: z.string(),
        browser_instance_id: z.string(),
        window_id: z.number().int(),
        tab_id: z.number().int(),
        /** where group: the tab group holding the session's tabs. */
        group_id: z.number().int().optional(),
        /** With url: the page loaded in the first tab (navigate's result). */
        navigation: NavigationResult().optional(),
      }),
    // The MCP server sets it to its own pid: its sessions end with it.
    mcp: { hidden: ["owner_pid"] },
    cli: {
      words: ["session", "start"],
      positionals: [{ param: "url", description: "A page to open in the session's first tab (one call instead of start + navigate)" }],
      flags: {
        browser: { description: "Browser instance id or label (bsk browsers), or a paired device id (server mode)" },
        device: { param: "browser", description: "A paired remote browser's device id or label (server mode; bsk daemon devices)" },
        launch: { description: "No browser connected: start the person's Chrome/Chromium/Edge/Brave (config: launch_browser)" },
        "no-focus": { param: "focus", value: false, description: "Do not bring the Agent Window to the front" },
        width: {},
        height: {},
        "owner-pid": { env: "BSK_OWNER_PID" },
        name: { description: "Task label shown to the person" },
        lease: {
          param: "lease_ms",
          type: "duration",
          description: "End the session unless a call renews it within this time (e.g. 10m, at most 1h; replaces the 5 min idle end)",
        },
        observe: {
          description: "Also stream these into bsk events: dom, sockets, visibility, perf (comma-separated or repeated)",
        },
        "allow-origin": {
          param: "allow_origins",
          description:
            "Only this origin may load in the session's tabs, top-level or in frames (repeatable); navigations elsewhere are blocked",
        },
        "block-requests": {
          description: "With --allow-origin: block every request (fetch, images, scripts, sockets) to other origins too",
        },
        isolated: {
          description:
            "An incognito window without the person's logins, cookies or storage, discarded at stop (needs bsk allowed in Incognito)",
        },
        where: {
          description: "window (default): an Agent Window of its own; group: a tab group in the person's own window, beside their tabs",
        },
        "no-borrow": {
          param: "borrow",
          value: false,
          description: "Refuse every lend: tab borrow fails and a tab the person drags into the group is put back out",
        },
        "confirm-writes": {
          description:
            "Ask the person before every click, fill, navigation or other page change, on every site (they Allow or Deny in the pill)",
        },
      },
      examples: [
        "S=$(bsk session start --name 'compare prices')",
        "S=$(bsk session start https://example.com --name 'read the docs')",
        "bsk session start --no-focus --width 1280 --height 900",
        "bsk session start --allow-origin https://shop.example --allow-origin https://pay.example --block-requests",
        "bsk session start --isolated --name 'sign up for the newsletter'",
        "bsk session start --where group --name 'fill the form'",
        "bsk session start --name 'pay the invoice' --confirm-writes",
      ],
    },
  }),

  "session.stop": method({
    owner: "daemon",
    effect: "ControlPlane",
    scope: "none",
    description:
      "End a session (or all): its own tabs close one by one, borrowed tabs go back, the Agent Window closes. A session the person has taken over leaves its own tabs open with them (left_tab_ids).",
    params: () =>
      z
        .object({
          session_id: z.string().optional().describe("Session to stop"),
          all: z.boolean().default(false).describe("Stop every live session"),
        })
        .refine((p) => p.all || p.session_id, { message: "give a session id or --all" }),
    result: () =>
      z.object({
        stopped: z.array(z.string()),
        failed: z.array(z.object({ session_id: z.string(), code: z.string(), message: z.string() })),
        closed_tab_ids: z.array(z.number().int()),
        returned_tab_ids: z.array(z.number().int()),
        /** Tabs of a session the person had taken over: left open with them, bsk detached. */
        left_tab_ids: z.array(z.number().int()).optional(),
      }),
    cli: {
      words: ["session", "stop"],
      positionals: [{ param: "session_id", description: "Session id (or use --session / BSK_SESSION)" }],
      flags: {
        session: { param: "session_id", env: "BSK_SESSION", description: "Session id" },
        all: { value: true },
      },
    },
  }),

  "session.list": method({
    owner: "daemon",
    effect: "ControlPlane",
    readsOnly: true,
    scope: "none",
    description: "Live sessions and recently ended ones with their end reason; --session shows only that one.",
    params: () => z.object({ session_id: SessionId().optional().describe("Only this session (live or ended)") }),
    result: () => z.object({ sessions: z.array(SessionInfo()) }),
    cli: {
      words: ["session", "list"],
      flags: { session: { param: "session_id" } },
      examples: ["bsk session list", "bsk session list --session k7qm"],
    },
  }),
};

/** Not commands: sent only between bsk's own processes (see `callers`). */
export const sessionWireMethods = {
  "session.open": wireMethod({
    owner: "extension",
    effect: "ControlPlane",
    callers: "wire",
    scope: "session",
    description: "Daemon → extension: open the session's Agent Window on about:blank.",
    params: () =>
      z.object({
        ...sessionParam(),
        name: z.string().optional(),
        focus: z.boolean().default(true),
        width: z.number().int().optional(),
        height: z.number().int().optional(),
        observe: ObserveKinds().default([]),
        /** Canonical origins (daemon-normalised); absent: no limit. */
        allow_origins: z.array(z.string()).optional(),
        block_requests: z.boolean().default(false),
        /** An incognito window (session start --isolated). */
        isolated: z.boolean().default(false),
        where: SessionWhere().default("window"),
        borrow: z.boolean().default(true),
        /** session start --confirm-writes: every page-changing call waits for the person's Allow. */
        confirm_writes: z.boolean().default(false),
      }),
    result: () => z.object({ window_id: z.number().int(), tab_id: z.number().int(), group_id: z.number().int().optional() }),
  }),

  "session.close": wireMethod({
    owner: "extension",
    effect: "ControlPlane",
    callers: "wire",
    scope: "session",
    description:
      "Daemon → extension: close the session's tabs one by one, return borrowed tabs, close its window; a session the person has taken over leaves its own tabs open with them.",
    params: () => z.object({ ...sessionParam(), reason: z.string() }),
    result: () =>
      z.object({
        closed_tab_ids: z.array(z.number().int()),
        returned_tab_ids: z.array(z.number().int()),
        left_tab_ids: z.array(z.number().int()).optional(),
      }),
  }),
};
