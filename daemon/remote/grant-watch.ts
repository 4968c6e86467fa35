/**
 * A paired device's live link lasts no longer than its grant: at the grant's expiry the link is closed with
 * GRANT_EXPIRED_CLOSE (the extension stops reconnecting and asks the person to pair again). A renewal moves the
 * expiry, so the timer, when it fires, reads the device again and re-arms for a grant that was renewed meanwhile; a
 * device no longer known (revoked, forgotten) is closed as revoked.
 */
import type { DeviceStore } from "./devices.ts";

/** 4000-4999 are the application's; 4008 is revoked (handlers/devices.ts). */
export const GRANT_EXPIRED_CLOSE = 4009;
const REVOKED_CLOSE = 4008;
/** setTimeout's largest delay; a longer grant re-arms when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface Closable {
  close(code: number, reason: string): void;
}

/** Watches one link; returns the function that stops watching (the link closed first). */
export function watchGrant(devices: DeviceStore, deviceId: string, link: Closable, now: () => number = Date.now): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    const d = devices.get(deviceId);
    if (!d) return link.close(REVOKED_CLOSE, "device revoked");
    const left = Date.parse(d.expires_at) - now();
    if (left <= 0) return link.close(GRANT_EXPIRED_CLOSE, "grant_expired");
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
    timer.unref?.();
  };
  arm();
  return () => clearTimeout(timer);
}
