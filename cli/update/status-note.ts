/** `bsk status`'s update line: what the last check recorded in update-state.json, when it names a newer release. */
import { readUpdateState } from "../../shared/update-state.ts";
import { compareVersions } from "../../protocol/release.ts";
import { APP_VERSION } from "../../protocol/version.ts";

export interface UpdateNote {
  latest: string;
  state: string;
  checked_at: string;
  note?: string;
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
