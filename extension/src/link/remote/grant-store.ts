/**
 * The remote device grant, kept only in chrome.storage.local (never logged, never in a URL, never sent anywhere but
 * as proofs to the server that proved it first). The secret is base64url; it rotates on every renewal.
 */
import { browser } from "wxt/browser";
import { LOCAL } from "../../session/settings.ts";

export interface RemoteGrant {
  /** wss://HOST[:PORT]/extension, as pasted. */
  url: string;
  /** host:port, what every proof binds. */
  authority: string;
  host: string;
  /** The server's key fingerprint the person confirmed. */
  key_id: string;
  device_id: string;
  generation: number;
  /** The device's secret D, base64url. */
  secret: string;
  expires_at: string;
  renew_after: string;
  paired_at: number;
}

function isGrant(v: unknown): v is RemoteGrant {
  const g = v as RemoteGrant | null;
  return (
    !!g &&
    typeof g.url === "string" &&
    typeof g.authority === "string" &&
    typeof g.host === "string" &&
    typeof g.device_id === "string" &&
    Number.isInteger(g.generation) &&
    typeof g.secret === "string" &&
    typeof g.expires_at === "string" &&
    typeof g.renew_after === "string"
  );
}

export async function loadGrant(): Promise<RemoteGrant | null> {
  try {
    const got = await browser.storage.local.get(LOCAL.remoteGrant);
    const g = got[LOCAL.remoteGrant];
    return isGrant(g) ? g : null;
  } catch {
    return null;
  }
}

export async function saveGrant(g: RemoteGrant): Promise<void> {
  await browser.storage.local.set({ [LOCAL.remoteGrant]: g });
}

export async function clearGrant(): Promise<void> {
  await browser.storage.local.remove(LOCAL.remoteGrant);
}
