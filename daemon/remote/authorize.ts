/**
 * POST /extension/authorize on a server-mode daemon: pairing a device with the code of `bsk daemon pair`, and
 * renewing a device's grant (protocol/remote.ts has the exchange). Every proof rides in the Authorization header;
 * nothing secret is ever in a URL or a log line. A challenge is answered once and lives CHALLENGE_MS; a failed finish
 * burns it. A pair-begin is a try on the code, limited per peer and in all (trust/pairing-codes.ts); a wrong one never
 * uses the code up. Every error is JSON {ok:false, error:{code, message, hint?, data}} with a status.
 */
import { BskError, toErrorBody } from "../../protocol/errors.ts";
import { parseAuthorization, REMOTE_LABELS } from "../../protocol/remote.ts";
import { NONCE_BYTES, randomBase64url } from "../../protocol/trust.ts";
import type { Logger } from "../log.ts";
import { type PairingCodes, pairingRefused } from "../trust/pairing-codes.ts";
import { grantExpired, notPaired } from "./device-errors.ts";
import type { DeviceStore } from "./devices.ts";
import { checkRemoteProof, remoteProof, sealFor, type RemoteNonces } from "./remote-proofs.ts";

const CHALLENGE_MS = 60_000;
const MAX_CHALLENGES = 1000;
const MAX_BODY_BYTES = 4096;

type Challenge = { nonces: RemoteNonces; expiresAt: number } & (
  | { kind: "pair"; key: Uint8Array; done: (paired: boolean) => void; nextTryInMs: number }
  | { kind: "renew"; deviceId: string; generation: number; key: Uint8Array }
);

export interface AuthorizeDeps {
  authority: string;
  keyId: string;
  devices: DeviceStore;
  pairing: PairingCodes;
  log: Logger;
  now?: () => number;
}

export class Authorizer {
  private readonly challenges = new Map<string, Challenge>();
  private readonly now: () => number;

  constructor(private readonly deps: AuthorizeDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The request's answer; `extensionId` is the allowed extension its Origin named, `peer` the address it came from. */
  async handle(req: Request, extensionId: string, peer: string): Promise<Response> {
    try {
      if (req.method !== "POST") throw new Refusal(405, new BskError("invalid_params", "authorize takes POST only"));
      const auth = parseAuthorization(req.headers.get("authorization"));
      if (!auth) {
        throw new Refusal(
          400,
          new BskError("invalid_params", 'missing or malformed Authorization header (Bsk <step> k="v", …)', {
            data: { reason: "bad_authorization" },
          }),
        );
      }
      const f = auth.fields;
      switch (auth.step) {
        case "pair-begin":
          return json(200, this.pairBegin(need(f, "nonce"), peer));
        case "pair-finish":
          return json(200, this.pairFinish(need(f, "challenge"), need(f, "proof"), await body(req), extensionId));
        case "renew-begin":
          return json(200, this.renewBegin(need(f, "device"), Number(need(f, "generation")), need(f, "nonce")));
        case "renew-finish":
          return json(200, this.renewFinish(need(f, "challenge"), need(f, "proof")));
      }
    } catch (err) {
      if (err instanceof Refusal) return json(err.status, { ok: false, error: toErrorBody(err.error) }, err.headers);
      // A device that may not renew (not paired, expired): the credential is refused.
      if (err instanceof BskError && err.code === "permission_denied") return json(401, { ok: false, error: toErrorBody(err) });
      this.deps.log.error("authorize failed", { error: err });
      return json(500, { ok: false, error: toErrorBody(new BskError("protocol_error", "authorize failed")) });
    }
  }

  private challenge(c: Challenge): string {
    const now = this.now();
    for (const [id, old] of this.challenges) if (old.expiresAt <= now) this.challenges.delete(id);
    if (this.challenges.size >= MAX_CHALLENGES) {
      throw new Refusal(
        503,
        new BskError("timeout", "too many authorize requests in flight; try again shortly", { data: { reason: "server_busy" } }),
      );
    }
    const id = randomBase64url(18);
    this.challenges.set(id, c);
    return id;
  }

  /** The challenge, taken out: a second answer to it finds nothing. */
  private take(id: string, kind: Challenge["kind"]): Challenge {
    const c = this.challenges.get(id);
    this.challenges.delete(id);
    if (!c || c.kind !== kind || c.expiresAt <= this.now()) {
      throw new Refusal(
        401,
        new BskError("permission_denied", "unknown, used or expired challenge; start again", { data: { reason: "bad_challenge" } }),
      );
    }
    return c;
  }

  private nonces(nonceE: string): RemoteNonces {
    if (nonceE.length < 32 || nonceE.length > 64)
      throw new Refusal(400, new BskError("invalid_params", "nonce must be 32 to 64 base64url characters"));
    return { authority: this.deps.authority, nonceE, nonceD: randomBase64url(NONCE_BYTES) };
  }

  private pairBegin(nonceE: string, peer: string) {
    const nonces = this.nonces(nonceE);
    const attempt = this.deps.pairing.begin(peer);
    if (!attempt.ok) {
      if (attempt.reason === "no_pairing_code") {
        this.deps.log.warn("remote pairing refused: no pending code");
        throw new Refusal(404, pairingRefused(attempt, "On the server, run bsk daemon pair and paste the new link."));
      }
      this.deps.log.warn("remote pairing refused: too many tries", { peer, scope: attempt.scope });
      throw new Refusal(429, pairingRefused(attempt), { "retry-after": String(Math.ceil(attempt.retryAfterMs / 1000)) });
    }
    const challenge = this.challenge({
      kind: "pair",
      key: attempt.key,
      done: attempt.done,
      nextTryInMs: attempt.nextTryInMs,
      nonces,
      expiresAt: this.now() + CHALLENGE_MS,
    });
    return {
      challenge,
      nonce: nonces.nonceD,
      key_id: this.deps.keyId,
      proof: remoteProof(attempt.key, REMOTE_LABELS.pairDaemon, nonces, this.deps.keyId),
    };
  }

  private pairFinish(id: string, proof: string, who: { label: string; browser: { name: string; version: string } }, extensionId: string) {
    const c = this.take(id, "pair") as Extract<Challenge, { kind: "pair" }>;
    const paired = checkRemoteProof(c.key, REMOTE_LABELS.pairExtension, c.nonces, proof);
    c.done(paired);
    if (!paired) {
      this.deps.log.warn("remote pairing refused: the code did not match", { next_try_in_ms: c.nextTryInMs });
      throw new Refusal(
        401,
        new BskError("permission_denied", "the pairing code did not match", {
          data: { reason: "pairing_failed", retry_after_ms: c.nextTryInMs },
        }),
      );
    }
    const { record, secret } = this.deps.devices.create({ ...who, extensionId });
    this.deps.log.info("device paired", { device: record.device_id, label: record.label, browser: record.browser.name });
    return {
      device_id: record.device_id,
      generation: record.generation,
      key_id: this.deps.keyId,
      sealed_secret: sealFor(c.key, REMOTE_LABELS.seal, c.nonces, secret),
      expires_at: record.expires_at,
      renew_after: record.renew_after,
    };
  }

  private renewBegin(deviceId: string, generation: number, nonceE: string) {
    const nonces = this.nonces(nonceE);
    const d = this.deps.devices.get(deviceId);
    if (!d || !this.deps.devices.acceptedGenerations(d).includes(generation)) throw notPaired(deviceId);
    if (this.deps.devices.expired(d)) throw grantExpired(deviceId);
    const key = this.deps.devices.secretOf(deviceId, generation);
    const challenge = this.challenge({ kind: "renew", deviceId, generation, key, nonces, expiresAt: this.now() + CHALLENGE_MS });
    return { challenge, nonce: nonces.nonceD, proof: remoteProof(key, REMOTE_LABELS.renewDaemon, nonces, deviceId) };
  }

  private renewFinish(id: string, proof: string) {
    const c = this.take(id, "renew") as Extract<Challenge, { kind: "renew" }>;
    if (!checkRemoteProof(c.key, REMOTE_LABELS.renewExtension, c.nonces, proof, c.deviceId)) {
      this.deps.log.warn("grant renewal refused: bad proof", { device: c.deviceId });
      throw new Refusal(
        401,
        new BskError("permission_denied", "the device could not prove its credential", { data: { reason: "bad_proof" } }),
      );
    }
    const d = this.deps.devices.get(c.deviceId);
    if (!d || !this.deps.devices.acceptedGenerations(d).includes(c.generation)) throw notPaired(c.deviceId);
    if (this.deps.devices.expired(d)) throw grantExpired(c.deviceId);
    const renewed = this.deps.devices.renew(c.deviceId)!;
    this.deps.log.info("device grant renewed", { device: c.deviceId, expires_at: renewed.record.expires_at });
    return {
      device_id: c.deviceId,
      generation: renewed.record.generation,
      sealed_secret: sealFor(c.key, REMOTE_LABELS.seal, c.nonces, renewed.secret, c.deviceId),
      expires_at: renewed.record.expires_at,
      renew_after: renewed.record.renew_after,
    };
  }
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly error: BskError,
    readonly headers: Record<string, string> = {},
  ) {
    super(error.message);
  }
}

function need(fields: Record<string, string>, key: string): string {
  const v = fields[key];
  if (v === undefined)
    throw new Refusal(
      400,
      new BskError("invalid_params", `the Authorization header lacks ${key}`, { data: { reason: "bad_authorization" } }),
    );
  return v;
}

async function body(req: Request): Promise<{ label: string; browser: { name: string; version: string } }> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw new Refusal(413, new BskError("invalid_params", `the body is limited to ${MAX_BODY_BYTES} bytes`));
  const text = await new Response(req.body).text();
  if (text.length > MAX_BODY_BYTES)
    throw new Refusal(413, new BskError("invalid_params", `the body is limited to ${MAX_BODY_BYTES} bytes`));
  let v: any;
  try {
    v = JSON.parse(text || "{}");
  } catch {
    throw new Refusal(400, new BskError("invalid_params", "the body must be JSON"));
  }
  const str = (x: unknown, fallback: string) => (typeof x === "string" && x.length <= 64 ? x : fallback);
  return { label: str(v?.label, "browser"), browser: { name: str(v?.browser?.name, "unknown"), version: str(v?.browser?.version, "") } };
}

function json(status: number, value: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });
}
