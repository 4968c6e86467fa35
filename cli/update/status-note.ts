/**
 * What the last update check recorded in update-state.json, for `bsk status` and `bsk doctor`: a newer release, or
 * a check that failed (one whose manifest was refused as expired, rolled back or unsigned is a warning of its own).
 */
import { readUpdateState } from "../../shared/update-state.ts";
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

export function updateNote(home: string): UpdateNote | undefined {
  const s = readUpdateState(home);
  if (!s?.latest) return undefined;
  try {
    if (compareVersions(s.latest, APP_VERSION) <= 0) return undefined;
  } catch {
    return undefined;
  }
  return { latest: s.latest, state: s.state, checked_at: s.checked_at, ...(s.note ? { note: s.note } : {}) };
}

/** The last check, when it failed. */
export function failedCheck(home: string): FailedCheck | undefined {
  const s = readUpdateState(home);
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
