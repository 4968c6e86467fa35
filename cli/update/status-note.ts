/**
 * What the last update check recorded in update-state.json, for `bsk status` and `bsk doctor`: a newer release, or
 * a check that failed (one whose manifest was refused as expired, rolled back or unsigned is a warning of its own).
 * `bsk status` loads this only when the file may have something to say (run.ts).
 */
import { parseUpdateState, type UpdateState } from "../../shared/update-state.ts";
import { REASON_HINTS } from "../../protocol/errors.ts";
import { compareVersions } from "../../protocol/release.ts";
import { APP_VERSION } from "../../protocol/version.ts";

export interface UpdateNote {
  latest: string;
  state: string;
  checked_at: string;
  note?: string;
}

/** The reasons a release manifest is refused for what it is (not for the network): someone may be tampering. */
const REFUSED = new Set(["manifest_expired", "manifest_rollback", "bad_signature"]);

export interface FailedCheck {
  checked_at: string;
  error: string;
  reason?: string;
  /** The manifest itself was refused (expired, rolled back, unsigned), not merely unreachable. */
  refused: boolean;
  hint: string;
}

export function updateNote(s: UpdateState | undefined): UpdateNote | undefined {
  if (!s?.latest) return undefined;
  try {
    if (compareVersions(s.latest, APP_VERSION) <= 0) return undefined;
  } catch {
    return undefined;
  }
  return { latest: s.latest, state: s.state, checked_at: s.checked_at, ...(s.note ? { note: s.note } : {}) };
}

/** The last check, when it failed. */
export function failedCheck(s: UpdateState | undefined): FailedCheck | undefined {
  if (s?.state !== "failed" || !s.error) return undefined;
  const refused = s.reason !== undefined && REFUSED.has(s.reason);
  return {
    checked_at: s.checked_at,
    error: s.error,
    ...(s.reason && { reason: s.reason }),
    refused,
    hint: (s.reason && REASON_HINTS[s.reason]) || "The daemon checks again within 6 h; bsk update --check checks now.",
  };
}

/** What `bsk status` adds from update-state.json's JSON: a newer release, a refused check. */
export function statusNotes(raw: unknown): { update?: UpdateNote; update_refused?: FailedCheck } {
  const s = parseUpdateState(raw);
  const update = updateNote(s);
  const failed = failedCheck(s);
  return { ...(update && { update }), ...(failed?.refused && { update_refused: failed }) };
}
