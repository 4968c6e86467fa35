/**
 * What a remote link's close means: the server's close code, or the refusal it sent before closing (its error's
 * data.reason, else the close reason). Revoked, expired and refused stop the reconnect loop; anything else is retried.
 * Pure, unit-tested.
 */
import type { RemoteState } from "../../session/settings.ts";

/** The server's close code for a revoked device (daemon/handlers/devices.ts). */
export const REVOKED_CLOSE = 4008;
/** The server's close code for a link whose grant expired while it was live (daemon/remote/grant-watch.ts). */
export const GRANT_EXPIRED_CLOSE = 4009;

export function stopReason(code: number, why: string): Extract<RemoteState, "revoked" | "expired" | "refused"> | null {
  if (code === REVOKED_CLOSE) return "revoked";
  if (code === GRANT_EXPIRED_CLOSE || why === "grant_expired") return "expired";
  if (why === "device_not_paired") return "refused";
  return null;
}
