import { z } from "zod";
import { method, wireMethod, sessionParam } from "../define.ts";
import { RecordTrace, STOP_REASONS } from "../trace.ts";

/** A recording waits for the person at most this long (a call's deadline is at most 24 h, with slack). */
export const RECORD_MAX_MS = 23 * 3_600_000;

/**
 * Recording what the person does (`bsk record start|stop`): a session of its own whose tab shows the record panel;
 * the trace (protocol/trace.ts) comes back when the person clicks Finish, `record stop` runs, the timeout passes or
 * the tab closes. The daemon drives it (record.start, record.stop) through the extension's record.begin / await / finish.
 */
export const recordingMethods = {
  "record.start": method({
    owner: "daemon",
    effect: "ControlPlane",
    scope: "none",
    description:
      "Record what the person does in a new tab: opens it (at --url), shows a record panel with Finish, and waits until " +
      "Finish, bsk record stop, the timeout or the tab closing. Writes the trace (JSON: navigations with cause, clicks, " +
      "fills, selects, key presses on role/name targets; passwords and one-time codes redacted) to --out and lists its " +
      "steps as bsk commands.",
    mcp: {
      hidden: [],
      description:
        "Record what the person does in a new tab: opens it (at url), shows a record panel with Finish, and waits until " +
        "Finish, bsk record stop, the timeout or the tab closing. The trace is JSON: navigations with cause, clicks, fills, " +
        "selects, key presses on role/name targets; passwords and one-time codes redacted.",
    },
    params: () =>
      z.object({
        url: z.string().min(1).max(8192).optional().describe("Page the recording starts on (default: about:blank)"),
        purpose: z.string().min(1).max(500).optional().describe("What is being recorded, shown to the person and kept in the trace"),
        out: z.string().optional().describe("Trace file (the CLI writes it; default in the temp dir)"),
        overwrite: z.boolean().default(false).describe("Replace an existing --out file"),
        timeout_ms: z.number().int().min(1000).max(RECORD_MAX_MS).default(RECORD_MAX_MS).describe("Longest the recording runs"),
        browser: z.string().optional().describe("Browser instance id or label (bsk browsers)"),
      }),
    result: () =>
      z.object({
        session_id: z.string(),
        tab_id: z.number().int(),
        trace: RecordTrace(),
        /** Where the CLI wrote the trace. */
        path: z.string().optional(),
      }),
    waitParam: "timeout_ms",
    jsonFile: { data: "trace", pathParam: "out", overwriteParam: "overwrite", defaultName: "bsk-record" },
    cli: {
      words: ["record", "start"],
      flags: {
        url: { description: "Page to start on" },
        purpose: { description: "What the person is about to show (shown in the panel, kept in the trace)" },
        out: { description: "Trace file to write (default: $TMPDIR/bsk-record-<time>.json)" },
        overwrite: {},
        timeout: { param: "timeout_ms", type: "duration", description: "Stop recording after this long" },
        browser: { description: "Browser instance id or label" },
      },
      examples: [
        "bsk record start --url https://example.com/login --purpose 'sign in' --out login.json",
        "bsk record start --json > trace.json",
      ],
    },
  }),

  "record.stop": method({
    owner: "daemon",
    effect: "ControlPlane",
    scope: "none",
    description: "Finish a recording from another terminal (as the person's Finish would); bsk record start then writes the trace.",
    mcp: {
      hidden: [],
      description: "Finish a recording while bsk record start waits (as the person's Finish would); it then returns the trace.",
    },
    params: () =>
      z.object({ session_id: z.string().min(1).max(32).optional().describe("The recording's session (default: the only recording)") }),
    result: () => z.object({ session_id: z.string(), steps: z.number().int() }),
    cli: {
      words: ["record", "stop"],
      flags: { session: { param: "session_id", env: "BSK_SESSION", description: "The recording's session id" } },
      examples: ["bsk record stop", "bsk record stop --session s7"],
    },
  }),
};

/** Not commands: sent only between bsk's own processes (see `callers`). */
export const recordingWireMethods = {
  "record.begin": wireMethod({
    owner: "extension",
    effect: "ControlPlane",
    callers: "wire",
    scope: "session",
    description: "Daemon → extension: start recording in the session's tab (after loading url), show the record panel.",
    params: () =>
      z.object({
        ...sessionParam(),
        tab_id: z.number().int(),
        url: z.string().optional(),
        purpose: z.string().optional(),
        timeout_ms: z.number().int().min(1000).max(RECORD_MAX_MS),
      }),
    result: () => z.object({ tab_id: z.number().int(), start_url: z.string(), started_at: z.string() }),
  }),

  "record.await": wireMethod({
    owner: "extension",
    effect: "PassiveRead",
    callers: "wire",
    scope: "session",
    description: "Daemon → extension: wait until the session's recording ends; answers with its trace.",
    answeredByTheEnd: true,
    params: () => z.object({ ...sessionParam() }),
    result: () => z.object({ trace: RecordTrace() }),
  }),

  "record.finish": wireMethod({
    owner: "extension",
    effect: "ControlPlane",
    callers: "wire",
    scope: "session",
    description: "Daemon → extension: end the session's recording now (record stop).",
    params: () => z.object({ ...sessionParam(), stopped_by: z.enum(STOP_REASONS) }),
    result: () => z.object({ steps: z.number().int() }),
  }),
};
