/**
 * The recording trace (`bsk record start`): what the person did in a recording tab, as steps an agent can follow
 * with ordinary commands. Versioned and strict; `protocol/schemas/trace.json` is generated from it.
 * Values of password and one-time-code fields are never in it: they are "***" with `redacted: true`.
 */
import { z } from "zod";

export const TRACE_VERSION = 1;

/** Why a navigation happened: the person typed or chose it, a link, a form, reload, back/forward, a page's script or history API. */
export const NAV_CAUSES = ["typed", "link", "form_submit", "reload", "history", "spa", "redirect", "script", "other"] as const;

/** How the recording ended. */
export const STOP_REASONS = ["finish", "stop", "tab_closed", "timeout", "session_ended"] as const;

export const REDACTED_VALUE = "***";

/**
 * The element a step acted on: role and accessible name as bsk's snapshot computes them (what `bsk find` matches),
 * plus fallbacks; `selector` is a CSS selector that matched only this element when it was recorded.
 */
export const TraceTarget = () =>
  z.strictObject({
    role: z.string(),
    name: z.string(),
    tag: z.string(),
    selector: z.string().optional(),
    /** What tells it apart from others of the same role and name, as the snapshot prints it: `in: "Card B"`, `nth=2`. */
    context: z.string().optional(),
    label: z.string().optional(),
    placeholder: z.string().optional(),
    testid: z.string().optional(),
    name_attr: z.string().optional(),
    id: z.string().optional(),
    type: z.string().optional(),
    href: z.string().optional(),
    /** The address of the iframe the element is in (absent: the page itself); reach it through a snapshot's refs. */
    frame: z.string().optional(),
  });

const Modifier = () => z.enum(["Alt", "Control", "Meta", "Shift"]);

const base = {
  /** 1, 2, 3… in order. */
  id: z.number().int().min(1),
  /** The page (pages[].id) the step happened on. */
  page: z.number().int().min(1),
  at: z.string().describe("ISO time"),
};

export const TraceStep = () =>
  z.discriminatedUnion("op", [
    z.strictObject({ ...base, op: z.literal("navigate"), to: z.string(), cause: z.enum(NAV_CAUSES) }),
    z.strictObject({
      ...base,
      op: z.literal("click"),
      target: TraceTarget(),
      button: z.enum(["left", "middle", "right"]).optional(),
      count: z.number().int().min(2).optional(),
      modifiers: z.array(Modifier()).optional(),
    }),
    z.strictObject({ ...base, op: z.literal("fill"), target: TraceTarget(), value: z.string(), redacted: z.literal(true).optional() }),
    z.strictObject({ ...base, op: z.literal("select"), target: TraceTarget(), values: z.array(z.string()), labels: z.array(z.string()) }),
    z.strictObject({ ...base, op: z.literal("press"), key: z.string(), modifiers: z.array(Modifier()), target: TraceTarget().optional() }),
    z.strictObject({ ...base, op: z.literal("check"), target: TraceTarget() }),
    z.strictObject({ ...base, op: z.literal("uncheck"), target: TraceTarget() }),
  ]);

export const TracePage = () => z.strictObject({ id: z.number().int().min(1), url: z.string(), title: z.string() });

export const RecordTrace = () =>
  z.strictObject({
    version: z.literal(TRACE_VERSION),
    recorded_at: z.string().describe("ISO time the trace was finished"),
    started_at: z.string(),
    stopped_by: z.enum(STOP_REASONS),
    purpose: z.string().optional(),
    start_url: z.string(),
    pages: z.array(TracePage()),
    steps: z.array(TraceStep()),
  });

export type TraceTargetT = z.infer<ReturnType<typeof TraceTarget>>;
export type TraceStepT = z.infer<ReturnType<typeof TraceStep>>;
export type TracePageT = z.infer<ReturnType<typeof TracePage>>;
export type RecordTraceT = z.infer<ReturnType<typeof RecordTrace>>;
export type NavCause = (typeof NAV_CAUSES)[number];
export type StopReason = (typeof STOP_REASONS)[number];
