/**
 * The interrupt gate: while the person has taken over a session, nothing may act on the page.
 * Reads and control-plane calls pass, so the agent can still look and stop.
 */
import type { Effect } from "../protocol/define.ts";
import { BskError } from "../protocol/errors.ts";

export type SessionState = "starting" | "live" | "taken_over" | "ended";

export function takenOverError(sessionId: string): BskError {
  return new BskError("user_aborted", `the person took over session ${sessionId}`, {
    data: { reason: "taken_over", session_id: sessionId },
  });
}

export function checkEffectGate(effect: Effect, state: SessionState, sessionId: string): void {
  if (state !== "taken_over") return;
  if (effect === "BrowserMutation" || effect === "TransientInput") throw takenOverError(sessionId);
}
