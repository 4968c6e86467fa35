/**
 * The secret through Chrome native messaging: `bsk native install` (or `bsk daemon start`) registers the host
 * com.bsk.bridge, which answers {secret, key_id} to our extension only. Any failure (no host registered, a host
 * that says no, a malformed answer) is a null: the person can still pair with a code.
 */
import { browser } from "wxt/browser";
import { fromBase64url, SECRET_BYTES } from "../../../protocol/trust.ts";

export const NATIVE_HOST = "com.bsk.bridge";

export type NativeResult = { ok: true; secret: Uint8Array } | { ok: false; error: string };

export async function fetchSecretNative(): Promise<NativeResult> {
  try {
    const reply = (await browser.runtime.sendNativeMessage(NATIVE_HOST, { type: "get_secret" })) as {
      ok?: unknown;
      secret?: unknown;
      error?: unknown;
    } | undefined;
    if (reply?.ok !== true) return { ok: false, error: typeof reply?.error === "string" ? reply.error : "the native host said no" };
    const secret = fromBase64url(reply.secret);
    if (!secret || secret.length !== SECRET_BYTES) return { ok: false, error: "the native host's answer is not a bsk secret" };
    return { ok: true, secret };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
