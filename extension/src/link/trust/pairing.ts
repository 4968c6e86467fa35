/**
 * Pairing by code (when native messaging is not available): the person runs `bsk daemon pair` and types the code
 * into the popup. On a link of its own, the extension asks the daemon to prove the code first; only then does it
 * prove the code itself and receive the secret, sealed under the code (protocol/trust.ts). A program squatting the
 * port learns nothing from us: it sees a nonce and never a value derived from the code.
 */
import type { ErrorBody } from "../../../../protocol/errors.ts";
import { encodeFrame, parseFrame, type ResponseFrame } from "../../../../protocol/frames.ts";
import {
  fromBase64url,
  hmac,
  importHmacKey,
  isWellFormedCode,
  keyIdOf,
  LABELS,
  NONCE_BYTES,
  normalizeCode,
  pairingKey,
  randomBase64url,
  SECRET_BYTES,
  toBase64url,
  transcript,
  verifyHmac,
  xorBytes,
} from "../../../../protocol/trust.ts";
import { PROTOCOL_VERSION } from "../../../../protocol/version.ts";
import { saveKey } from "./key-store.ts";

const STEP_TIMEOUT_MS = 5_000;

/** `reason` is stable (the popup words it in the person's language), `error` is the English text. */
export type PairReason = "bad_code" | "no_daemon" | "no_answer" | "no_code" | "old_protocol" | "wrong_code" | "damaged" | "refused";
export type PairOutcome = { ok: true; key_id: string } | { ok: false; reason: PairReason; error: string };

/** One request at a time on a short-lived socket. */
class Link {
  private waiting: ((f: ResponseFrame | null) => void) | null = null;
  private counter = 0;

  private constructor(private readonly ws: WebSocket) {
    ws.onmessage = (ev) => {
      const parsed = parseFrame(String(ev.data));
      if (parsed.ok && parsed.value.kind === "response") this.waiting?.(parsed.value.frame);
    };
    ws.onclose = () => this.waiting?.(null);
  }

  static open(port: number): Promise<Link | null> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/extension`);
      const timer = setTimeout(() => {
        ws.close();
        resolve(null);
      }, STEP_TIMEOUT_MS);
      ws.onopen = () => {
        clearTimeout(timer);
        resolve(new Link(ws));
      };
      ws.onerror = () => {
        clearTimeout(timer);
        resolve(null);
      };
    });
  }

  request(method: string, params: unknown): Promise<ResponseFrame | null> {
    const id = `pair${++this.counter}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(null), STEP_TIMEOUT_MS);
      const done = (f: ResponseFrame | null) => {
        clearTimeout(timer);
        this.waiting = null;
        resolve(f && f.id === id ? f : null);
      };
      this.waiting = done;
      this.ws.send(encodeFrame({ id, method, params }));
    });
  }

  close(): void {
    try {
      this.ws.close(1000, "pairing done");
    } catch {
      /* closed */
    }
  }
}

function refusal(frame: ResponseFrame | null, port: number): Extract<PairOutcome, { ok: false }> {
  if (!frame)
    return {
      ok: false,
      reason: "no_answer",
      error: `no answer from 127.0.0.1:${port}; is the bsk daemon running there (bsk daemon status)?`,
    };
  const error = (frame as { error?: ErrorBody }).error;
  if (error?.data?.reason === "no_pairing_code")
    return { ok: false, reason: "no_code", error: "no code is waiting (expired or used): run bsk daemon pair again" };
  if (error?.code === "version_too_old")
    return { ok: false, reason: "old_protocol", error: `the daemon speaks another protocol: ${error.message}` };
  return { ok: false, reason: "refused", error: error?.message ?? "the daemon's answer made no sense" };
}

export async function pairWithCode(input: string, port: number): Promise<PairOutcome> {
  const code = normalizeCode(input);
  if (!isWellFormedCode(code))
    return { ok: false, reason: "bad_code", error: "a pairing code has 12 letters and digits, like ABCD-EFGH-JKMN" };
  const k = await pairingKey(code);
  const link = await Link.open(port);
  if (!link) return { ok: false, reason: "no_daemon", error: `nothing answers on 127.0.0.1:${port}; start bsk there, or change the port` };
  try {
    const nonceE = randomBase64url(NONCE_BYTES);
    const begun = await link.request("system.pair_begin", { protocol_version: PROTOCOL_VERSION, nonce: nonceE });
    const begin = begun && "result" in begun ? (begun.result as { nonce?: unknown; proof?: unknown }) : undefined;
    if (!begin || typeof begin.nonce !== "string") return refusal(begun, port);
    const nonceD = begin.nonce;
    if (!(await verifyHmac(k, transcript(LABELS.pairDaemon, port, nonceE, nonceD), begin.proof))) {
      return {
        ok: false,
        reason: "wrong_code",
        error: `the program on port ${port} could not prove the code: the code is wrong, or it is not your bsk`,
      };
    }
    const proof = toBase64url(await hmac(k, transcript(LABELS.pairExtension, port, nonceE, nonceD)));
    const finished = await link.request("system.pair_finish", { proof });
    const finish = finished && "result" in finished ? (finished.result as { sealed_secret?: unknown; key_id?: unknown }) : undefined;
    const sealed = fromBase64url(finish?.sealed_secret);
    if (!sealed || sealed.length !== SECRET_BYTES) return refusal(finished, port);
    const secret = xorBytes(sealed, await hmac(k, transcript(LABELS.pairSeal, port, nonceE, nonceD)));
    try {
      if ((await keyIdOf(await importHmacKey(secret))) !== finish?.key_id) {
        return { ok: false, reason: "damaged", error: "the secret arrived damaged; run bsk daemon pair again" };
      }
      const saved = await saveKey(secret, "pairing");
      return { ok: true, key_id: saved.key_id };
    } finally {
      secret.fill(0);
    }
  } finally {
    link.close();
  }
}
