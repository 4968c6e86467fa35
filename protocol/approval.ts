/**
 * Sites that ask first (#16): on a tab whose top-level origin the person listed in the popup ("Ask me before the
 * agent acts here"), or in a session started with --confirm-writes, every page-changing call (effect class
 * BrowserMutation or TransientInput) waits for the person's Allow in the pill. What was decided travels on the reply:
 * `approval` in the result (allowed) or in `error.data` (approval_denied), and the daemon's ledger keeps it.
 */
import { z } from "zod";

/** The effect classes that are asked: everything that changes the page or sends it input. Reads are never asked. */
export const ASKED_EFFECTS: ReadonlySet<string> = new Set(["BrowserMutation", "TransientInput"]);

/** How the wait ended. Only `allowed` lets the call run; every other ending fails it with approval_denied. */
export const APPROVAL_DECISIONS = ["allowed", "denied", "timed_out", "tab_closed", "navigated"] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** Who decided: the person's click, the clock, or the browser (the tab closed, the page navigated). */
export const APPROVAL_DECIDERS = ["person", "timeout", "browser"] as const;

/** Why the call was asked: the tab's site is on the person's list, or the session asks for every site. */
export const APPROVAL_CAUSES = ["ask_first_site", "confirm_writes"] as const;

/** The longest the person is asked; the call's own deadline ends the wait sooner (give a longer --timeout for more). */
export const APPROVAL_WAIT_MS = 60_000;

export const Approval = () =>
  z.object({
    decision: z.enum(APPROVAL_DECISIONS),
    by: z.enum(APPROVAL_DECIDERS),
    /** What the pill said was about to happen, e.g. "click button 'Pay now'" (never a typed value). */
    description: z.string(),
    cause: z.enum(APPROVAL_CAUSES),
    /** The tab's top-level origin when it was asked. */
    origin: z.string().optional(),
    waited_ms: z.number().int(),
  });

export type ApprovalRecord = z.output<ReturnType<typeof Approval>>;

/** A page-changing method's result gains `approval` when the person was asked (define.ts `method()`). */
export function withApprovalField<R extends z.ZodType>(result: R): R {
  if (!(result instanceof z.ZodObject)) return result;
  return result.extend({
    approval: Approval().optional().describe("Present when the person was asked first (an ask-first site, --confirm-writes)"),
  }) as unknown as R;
}

/** The approval a reply carries (the result's, or an approval_denied error's data), if any. */
export function approvalOf(reply: { result: unknown } | { error: { data?: Record<string, unknown> } }): ApprovalRecord | undefined {
  const found = "result" in reply ? (reply.result as { approval?: unknown } | null)?.approval : reply.error.data?.approval;
  // Most replies carry none: no schema is built for them (this runs on every mutation's and input's reply path).
  if (found === undefined) return undefined;
  const parsed = Approval().safeParse(found);
  return parsed.success ? parsed.data : undefined;
}
