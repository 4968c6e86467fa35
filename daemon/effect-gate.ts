/**
 * The interrupt gate: while the person has taken over a session, the agent can neither act on its pages nor read
 * them (protocol/person-control.ts). Control-plane calls pass, so the agent can still see events and stop.
 */
import type { MethodName } from "../protocol/catalog.ts";
import { BskError } from "../protocol/errors.ts";
import { refusedWhileTakenOver } from "../protocol/person-control.ts";

export type SessionState = "starting" | "live" | "taken_over" | "ended";

export function takenOverError(sessionId: string): BskError {
  return new BskError("user_aborted", `the person took over session ${sessionId}`, {
    data: { reason: "taken_over", session_id: sessionId },
  });
}

export function checkEffectGate(method: MethodName, state: SessionState, sessionId: string): void {
  if (state === "taken_over" && refusedWhileTakenOver(method)) throw takenOverError(sessionId);
}
