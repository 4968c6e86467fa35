/**
 * storage.local holds the person's switches, the ask-first list, the remote device grant and the test hooks. By
 * default content scripts can read and write it too, and ours run in every page's renderer: a renderer a hostile page
 * has taken over could read the grant and turn consent off. From Chrome 140 (the manifest's minimum) an area can be
 * kept to the extension's own pages and worker; this asks for that on every start (the browser keeps it, the call is
 * idempotent). Until it has answered, and if it failed, what storage.local says counts for nothing that protects.
 * storage.sync holds nothing of bsk's and is closed the same way, so such a renderer cannot use it either (to leave
 * something for a later version to read, or to fill the person's synced quota).
 */
import { browser } from "wxt/browser";

const storageLockState = {
  /** The browser's answer to this context's one setAccessLevel call. */
  lock: undefined as Promise<boolean> | undefined,
};

/** Resolves true once storage.local is closed to content scripts; false (logged) when the browser refused. */
export function localStorageLocked(): Promise<boolean> {
  const s = storageLockState;
  s.lock ??= browser.storage.local.setAccessLevel({ accessLevel: "TRUSTED_CONTEXTS" }).then(
    () => true,
    (err: unknown) => {
      console.error("bsk: could not close storage.local to content scripts; its switches count as their defaults", err);
      return false;
    },
  );
  return s.lock;
}

/** storage.sync closed to content scripts too (bsk reads nothing there: a refusal is logged, nothing waits on it). */
export function lockSyncStorage(): void {
  browser.storage.sync.setAccessLevel({ accessLevel: "TRUSTED_CONTEXTS" }).catch((err: unknown) => {
    console.error("bsk: could not close storage.sync to content scripts", err);
  });
}
