import { z } from "zod";
import { Approval } from "../approval.ts";
import { method, SessionId, sessionParam } from "../define.ts";

export const OP_STATES = ["reserved", "executed", "not_executed", "unknown"] as const;

/** Richer event streams a session can opt into (session start --observe). */
export const OBSERVE_KINDS = ["dom", "sockets", "visibility", "perf"] as const;
export const ObserveKinds = () => z.array(z.enum(OBSERVE_KINDS));

/** One operation of the ledger (a browser mutation under its op id). Params are never listed, only their keyed hash. */
export const OpInfo = () =>
  z.object({
    op_id: z.string(),
    method: z.string(),
    session_id: z.string().optional(),
    state: z.enum(OP_STATES),
    /** committed (executed), none (not_executed), unknown; absent while reserved. */
    effect_state: z.enum(["committed", "none", "unknown"]).optional(),
    /** Why it did not (certainly) run: the error code, or daemon_restarted. */
    reason: z.string().optional(),
    /** The person was asked first: allowed, denied, timed out…, by whom, and what the pill said. */
    approval: Approval().optional(),
    reserved_at: z.string(),
    settled_at: z.string().optional(),
    trace_id: z.string(),
  });

/** One entry of a session's event stream; `seq` is the daemon's, consecutive per session. */
export const EventInfo = () =>
  z.object({
    seq: z.number().int(),
    ts: z.string(),
    event: z.string(),
    data: z.record(z.string(), z.unknown()),
    /** A coalesced burst: this many events of the kind within a short window; `data` is the last one's. */
    count: z.number().int().optional(),
  });

/** Follow for most of a day (a call's deadline is at most 24 h) unless --timeout says less; Ctrl-C or the session's end stop it sooner. */
export const FOLLOW_MS = 23 * 3_600_000;

/** What was done and what happened: the operation ledger and the session event stream, both kept on disk. */
export const historyMethods = {
  ops: method({
    owner: "daemon",
    effect: "ControlPlane",
    readsOnly: true,
    scope: "none",
    description: "Operations in the ledger: each browser mutation's op id, method, session and outcome (oldest first).",
    params: () =>
      z.object({
        session_id: SessionId().optional().describe("Only this session's ops"),
        state: z.enum(OP_STATES).optional().describe("Only ops in this state"),
        limit: z.number().int().min(1).max(10_000).default(50).describe("The newest this many matching ops"),
      }),
    result: () => z.object({ ops: z.array(OpInfo()), total: z.number().int().describe("Matching ops remembered") }),
    cli: {
      words: ["ops"],
      flags: {
        session: { param: "session_id" },
        state: {},
        limit: {},
      },
      examples: ["bsk ops --state unknown", "bsk ops --session $S --json"],
    },
  }),

  events: method({
    owner: "daemon",
    effect: "PassiveRead",
    scope: "session",
    description: "The session's ordered event stream after a cursor (also of an ended session); --follow streams new ones.",
    params: () =>
      z.object({
        ...sessionParam(),
        since: z.number().int().min(0).default(0).describe("Only events after this sequence number"),
        limit: z.number().int().min(1).max(10_000).default(200).describe("Most events to return"),
        types: z
          .array(z.string().min(1).max(200))
          .optional()
          .describe("Only these kinds: a name (console.error) or a family (tab, socket); comma-separated or repeated"),
        follow_ms: z
          .number()
          .int()
          .min(0)
          .max(FOLLOW_MS)
          .default(0)
          .describe("Keep streaming new events this long (as event frames, not limited by limit)"),
      }),
    result: () =>
      z.object({
        session_id: z.string(),
        events: z.array(EventInfo()).describe("Empty with --follow: those went out as event frames"),
        next_since: z.number().int().describe("Pass as --since next time"),
        dropped: z.number().int().describe("Events after since that are no longer kept"),
        ended: z.boolean().describe("The session has ended (its stream is complete)"),
      }),
    waitParam: "follow_ms",
    // A tool result is one reply: a followed stream's event frames have nowhere to go.
    mcp: { hidden: ["follow_ms"], description: "The session's ordered event stream after a cursor (also of an ended session)." },
    cli: {
      words: ["events"],
      flags: {
        since: {},
        limit: {},
        type: { param: "types", description: "Only these kinds, e.g. console.error,navigation or tab" },
        follow: {
          param: "follow_ms",
          type: "boolean",
          value: FOLLOW_MS,
          description: "Keep printing new events until Ctrl-C, --timeout or the session's end",
        },
      },
      examples: ["bsk events --session $S --since 12", "bsk events --session $S --follow --type console.error,request.failed --json"],
    },
  }),
};
