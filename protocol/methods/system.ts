import { z } from "zod";
import { BrowserInfo, method, wireMethod, SessionInfo } from "../define.ts";

/** Why the daemon refuses a file: URL (system.file_url); the extension words each one (session/file-urls.ts). */
export const FILE_URL_RULES = ["bsk_home", "system_files", "linked_path", "unresolved"] as const;
export type FileUrlRule = (typeof FILE_URL_RULES)[number];

/** Daemon status, browser registry, extension handshake and cancellation. */
export const systemMethods = {
  "system.pairing_code": method({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "person",
    scope: "none",
    description: "Print a one-use pairing code for the extension's popup (when native messaging is not available).",
    params: () => z.object({}),
    result: () =>
      z.object({
        code: z.string(),
        expires_at: z.string(),
        expires_in_ms: z.number().int(),
        ws_port: z.number().int(),
        /** Server mode: the pairing link for the popup's Remote connection, shown once, and the server's key fingerprint. */
        link: z.string().optional(),
        key_id: z.string().optional(),
      }),
    cli: {
      words: ["daemon", "pair"],
      examples: ["bsk daemon pair   # then type the code into the bsk popup's Pairing field"],
    },
  }),

  "system.status": method({
    owner: "daemon",
    effect: "ControlPlane",
    readsOnly: true,
    scope: "none",
    description: "Daemon, browsers and live sessions.",
    params: () => z.object({}),
    result: () =>
      z.object({
        daemon: z.object({
          pid: z.number().int(),
          version: z.string(),
          protocol_version: z.string(),
          started_at: z.string(),
          uptime_ms: z.number(),
          home: z.string(),
          socket: z.string(),
          /** The loopback TCP port of the CLI link (BSK_TRANSPORT=tcp, or a sandbox that hides the socket); absent when off. */
          cli_port: z.number().int().optional(),
          ws_port: z.number().int(),
          /** Public name of this install's secret; the popup of a paired extension shows the same. */
          key_id: z.string(),
        }),
        browsers: z.array(BrowserInfo()),
        sessions: z.array(SessionInfo()),
      }),
    cli: { words: ["status"], examples: ["bsk status", "bsk status --json"] },
  }),

  "system.allow_extension": method({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "person",
    scope: "none",
    description: "Allow another extension id (e.g. a store build) to connect.",
    params: () =>
      z.object({
        extension_id: z
          .string()
          .regex(/^[a-p]{32}$/, "an extension id is 32 letters a-p")
          .describe("Chromium extension id"),
      }),
    result: () => z.object({ allowed: z.array(z.string()) }),
    cli: {
      words: ["daemon", "allow-extension"],
      positionals: [{ param: "extension_id", description: "Extension id (32 letters a-p)", required: true }],
    },
  }),

  "browser.list": method({
    owner: "daemon",
    effect: "ControlPlane",
    readsOnly: true,
    scope: "none",
    description: "Connected browsers (one per extension instance).",
    params: () => z.object({}),
    result: () => z.object({ browsers: z.array(BrowserInfo()) }),
    cli: { words: ["browsers"] },
  }),

  "browser.launch": method({
    owner: "daemon",
    effect: "ControlPlane",
    scope: "none",
    description:
      "Start the person's installed Chrome, Chromium, Edge or Brave with their default profile, unless one already runs (BSK_BROWSER_COMMAND overrides which).",
    params: () => z.object({}),
    result: () =>
      z.object({
        launched: z.boolean(),
        browser: z.string(),
        command: z.string(),
        pid: z.number().int().optional(),
        /** Why nothing was started. */
        note: z.string().optional(),
      }),
    cli: { words: ["browser", "launch"], examples: ["bsk browser launch"] },
  }),
};

/** Not commands: sent only between bsk's own processes (see `callers`). */
export const systemWireMethods = {
  "system.hello": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "link",
    scope: "none",
    description: "First frame from the extension: a nonce the daemon must MAC with this install's secret (protocol/trust.ts).",
    params: () =>
      z.object({
        protocol_version: z.string(),
        nonce: z.string().min(32).max(64),
        /** Remote mode (protocol/remote.ts): the paired device and the generation of the secret it proves with. */
        device_id: z.string().min(1).max(64).optional(),
        generation: z.number().int().min(1).optional(),
      }),
    /** Nothing that names the daemon or its version: that waits for the extension's proof (the handshake's result). */
    result: () =>
      z.object({
        nonce: z.string(),
        /** HMAC(secret, daemon proof transcript); the extension sends nothing more unless it checks out. */
        proof: z.string(),
      }),
  }),

  "system.handshake": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "link",
    scope: "none",
    description: "After system.hello: the extension's own proof, who it is and which sessions it still holds.",
    params: () =>
      z.object({
        /** HMAC(secret, extension proof transcript) over the hello's nonces. */
        proof: z.string(),
        client: z.string(),
        version: z.string(),
        protocol_version: z.string(),
        instance_id: z.string().min(1).max(64),
        browser: z.object({ name: z.string(), version: z.string() }),
        label: z.string().max(64),
        sessions: z
          .array(
            z.object({
              session_id: z.string(),
              window_id: z.number().int(),
              tab_ids: z.array(z.number().int()),
              current_tab_id: z.number().int().nullable(),
            }),
          )
          .default([]),
        /** The extension's event stream (new each browser run): its numbered events are acknowledged per stream. */
        event_stream: z.string().min(1).max(64).optional(),
        /** What it does beyond its protocol version (HOLD_INPUT); a name the daemon does not know is ignored. */
        features: z.array(z.string().max(32)).max(16).default([]),
      }),
    result: () =>
      z.object({
        server: z.string(),
        version: z.string(),
        protocol_version: z.string(),
        skew: z.boolean(),
        heartbeat_ms: z.number().int(),
        adopted: z.array(z.string()),
        ended: z.array(z.object({ session_id: z.string(), reason: z.string() })),
        /** The highest event seq of `event_stream` the daemon already recorded: the extension resends only later ones. */
        events_acked: z.number().int().optional(),
        /** $BSK_HOME as configured and as resolved (symlinks followed): no session tab ever loads a file: URL below it. */
        bsk_home: z.array(z.string()).max(2).optional(),
      }),
  }),

  "system.pair_begin": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "link",
    scope: "none",
    description: "Pairing, first frame instead of system.hello: burns the pending code and proves it (protocol/trust.ts).",
    params: () => z.object({ protocol_version: z.string(), nonce: z.string().min(32).max(64) }),
    result: () => z.object({ nonce: z.string(), proof: z.string() }),
  }),

  "system.pair_finish": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "link",
    scope: "none",
    description: "Pairing: the extension proves the code; the daemon answers with the secret sealed under it, then closes.",
    params: () => z.object({ proof: z.string() }),
    result: () => z.object({ sealed_secret: z.string(), key_id: z.string() }),
  }),

  "system.file_url": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "link",
    scope: "none",
    description:
      "Whether a local session may open a file: URL, judged by the daemon on the path the OS would open (daemon/local-files.ts); only on the local link.",
    params: () => z.object({ url: z.string().max(8192) }),
    result: () =>
      z.object({
        /** null: it may; else the rule that refuses it. */
        rule: z.enum(FILE_URL_RULES).nullable(),
        path: z.string().optional(),
        detail: z.string().optional(),
      }),
  }),

  "system.shutdown": wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "wire",
    scope: "none",
    description: "Stop the daemon (live sessions end with reason daemon_stopped).",
    params: () => z.object({}),
    result: () => z.object({ pid: z.number().int(), ended_sessions: z.array(z.string()) }),
  }),

  cancel: wireMethod({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "wire",
    scope: "none",
    description: "Cancel an in-flight request by its id (sent by the CLI on Ctrl-C, forwarded to the extension).",
    params: () => z.object({ id: z.union([z.string(), z.number()]) }),
    result: () => z.object({ cancelled: z.boolean() }),
  }),
};
