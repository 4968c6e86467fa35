/**
 * The extension's side of the link proof (protocol/trust.ts): say hello with a fresh nonce, check the daemon's MAC
 * over both nonces and the port we dialed, and only then produce our own proof for system.handshake. Nothing but
 * the protocol version and the nonce goes out before the daemon has proven the secret.
 */
import type { ErrorBody } from "../../../../protocol/errors.ts";
import type { ResponseFrame } from "../../../../protocol/frames.ts";
import { hmac, LABELS, NONCE_BYTES, randomBase64url, toBase64url, transcript, verifyHmac } from "../../../../protocol/trust.ts";
import { PROTOCOL_VERSION } from "../../../../protocol/version.ts";

export type ProofOutcome =
  | { ok: true; proof: string }
  /** untrusted: it answered but could not prove the secret; refused: it speaks another protocol; failed: no usable answer. */
  | { ok: false; kind: "untrusted" | "refused" | "failed"; message: string };

export async function proveLink(
  key: CryptoKey,
  port: number,
  request: (method: string, params: unknown) => Promise<ResponseFrame>,
): Promise<ProofOutcome> {
  const nonceE = randomBase64url(NONCE_BYTES);
  const reply = await request("system.hello", { protocol_version: PROTOCOL_VERSION, nonce: nonceE });
  if ("error" in reply) {
    const error = reply.error as ErrorBody;
    if (error.code === "version_too_old") return { ok: false, kind: "refused", message: error.message };
    // A 1.x daemon wants system.handshake first: it cannot prove anything, and says so.
    if (error.code === "protocol_error" && /system\.handshake/.test(error.message)) {
      return { ok: false, kind: "refused", message: "the daemon on this port is older than this extension (protocol 1.x); update bsk" };
    }
    return { ok: false, kind: "failed", message: error.message };
  }
  const result = reply.result as { nonce?: unknown; proof?: unknown } | undefined;
  const nonceD = typeof result?.nonce === "string" ? result.nonce : "";
  if (!nonceD || !(await verifyHmac(key, transcript(LABELS.daemonProof, port, nonceE, nonceD), result?.proof))) {
    return {
      ok: false,
      kind: "untrusted",
      message: `the program on port ${port} could not prove it is your bsk (its secret does not match this browser's pairing)`,
    };
  }
  return { ok: true, proof: toBase64url(await hmac(key, transcript(LABELS.extensionProof, port, nonceE, nonceD))) };
}
