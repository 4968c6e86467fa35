/**
 * The secret through Chrome native messaging: `bsk native install` (or `bsk daemon start`) registers the host
 * com.bsk.bridge, which answers {secret, key_id} to our extension only. Any failure (no host registered, a host
 * that says no, a malformed answer) is a null: the person can still pair with a code.
 */
import { browser } from "wxt/browser";
import { fromBase64url, SECRET_BYTES } from "../../../../protocol/trust.ts";

export const NATIVE_HOST = "com.bsk.bridge";

export type NativeResult = { ok: true; secret: Uint8Array } | { ok: false; error: string };

/** A host that never answers must not hold up the connection (connect attempts run one after another). */
const NATIVE_TIMEOUT_MS = 10_000;

export async function fetchSecretNative(): Promise<NativeResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the native host did not answer within ${NATIVE_TIMEOUT_MS / 1000} s`)), NATIVE_TIMEOUT_MS);
    });
    const reply = (await Promise.race([browser.runtime.sendNativeMessage(NATIVE_HOST, { type: "get_secret" }), timeout])) as
      | {
          ok?: unknown;
          secret?: unknown;
          error?: unknown;
        }
      | undefined;
    if (reply?.ok !== true) return { ok: false, error: typeof reply?.error === "string" ? reply.error : "the native host said no" };
    const secret = fromBase64url(reply.secret);
    if (!secret || secret.length !== SECRET_BYTES) return { ok: false, error: "the native host's answer is not a bsk secret" };
    return { ok: true, secret };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}
