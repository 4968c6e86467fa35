/**
 * $BSK_HOME/update-state.json: what the last update check or install found. The daemon's periodic check and
 * `bsk update` write it; `bsk status` reads it (one small file, no network).
 */
import { inHome } from "./home.ts";
import { readJsonFile, writeFileAtomic } from "./fs-util.ts";

export type UpdateStateName =
  /** Newest release installed. */
  | "current"
  /** A newer release exists; it will be installed when no session is live. */
  | "available"
  /** A newer release exists but sessions are live; it waits for them to end. */
  | "deferred"
  /** `bsk update --yes` was started for it. */
  | "installing"
  | "updated"
  /** The check or the install failed (see error); the next check tries again. */
  | "failed";

export interface UpdateState {
  checked_at: string;
  /** The newest release's version, when known. */
  latest: string | null;
  /** The version that wrote this state. */
  current: string;
  state: UpdateStateName;
  error: string | null;
  /** The failed check's error reason (`manifest_expired`, `manifest_unreachable`, …). */
  reason?: string;
  /** Why an available release is not installed automatically. */
  note?: string;
}

export function updateStatePath(home: string): string {
  return inHome(home, "update-state.json");
}

export function readUpdateState(home: string): UpdateState | undefined {
  return parseUpdateState(readJsonFile(updateStatePath(home)));
}

/** The file's JSON as an UpdateState, or undefined when it is not one. */
export function parseUpdateState(raw: unknown): UpdateState | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const s = raw as Partial<UpdateState>;
  return typeof s.checked_at === "string" && typeof s.state === "string" ? (s as UpdateState) : undefined;
}

export function writeUpdateState(home: string, state: UpdateState): void {
  writeFileAtomic(updateStatePath(home), `${JSON.stringify(state)}\n`);
}
