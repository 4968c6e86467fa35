/**
 * What a remote link's close means: the server's close code, or the refusal it sent before closing (its error's
 * data.reason, else the close reason). Revoked, expired and refused stop the reconnect loop; anything else is retried.
 * And what the popup shows of a refusal. Pure, unit-tested.
 */
import type { RemoteReason, RemoteState } from "../../session/settings.ts";

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

/** The server's refusal (its error's data.reason) as the popup's reason code. */
const REFUSAL_REASONS: Readonly<Record<string, RemoteReason>> = {
  device_not_paired: "not_paired",
  grant_expired: "expired",
  rate_limited: "rate_limited",
};

/** A server's words are shown in the popup and kept in storage: as text, and never longer than this. */
const REFUSAL_TEXT_MAX = 300;

const words = (v: unknown): string => (typeof v === "string" ? v.slice(0, REFUSAL_TEXT_MAX) : "");

/**
 * A server's refusal, read as untrusted input: its reason (what stopReason is given), the text the popup shows and
 * the popup's reason code. Anything that is not the expected shape reads as a plain refusal.
 */
export function readRefusal(error: unknown): { reason: string | undefined; text: string; code: RemoteReason } {
  const e = error && typeof error === "object" ? (error as { message?: unknown; hint?: unknown; data?: unknown }) : {};
  const data = e.data && typeof e.data === "object" ? (e.data as { reason?: unknown }) : {};
  const reason = typeof data.reason === "string" ? data.reason.slice(0, 64) : undefined;
  const message = words(e.message) || "refused";
  const hint = words(e.hint);
  const code = reason !== undefined && Object.hasOwn(REFUSAL_REASONS, reason) ? REFUSAL_REASONS[reason]! : "refused";
  return { reason, text: hint ? `${message}. ${hint}` : message, code };
}
