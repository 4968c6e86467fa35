/**
 * The extension's side of /extension/authorize (protocol/remote.ts): pair with a server's link, renew a grant.
 * The server proves first each time (the code and its key fingerprint, or the device's secret); nothing derived
 * from the code or the secret goes out before that proof checks. Every proof rides in the Authorization header.
 */
import type { ErrorBody } from "../../../../protocol/errors.ts";
import { formatAuthorization, parsePairingLink, REMOTE_LABELS, remoteTranscript, type AuthorizeStep } from "../../../../protocol/remote.ts";
import {
  fromBase64url,
  hmac,
  importHmacKey,
  NONCE_BYTES,
  pairingKey,
  randomBase64url,
  SECRET_BYTES,
  toBase64url,
  verifyHmac,
  xorBytes,
} from "../../../../protocol/trust.ts";
import type { RemoteGrant } from "./grant-store.ts";

/** What went wrong, for the popup: `reason` is stable (tests read it), `error` is the person's text. */
export type AuthorizeOutcome =
  | { ok: true; grant: RemoteGrant }
  | {
      ok: false;
      reason:
        | "bad_link"
        | "network"
        | "no_code"
        | "wrong_code"
        | "server_unproven"
        | "refused"
        | "expired"
        | "not_paired"
        | "rate_limited"
        | "malformed";
      error: string;
    };

export function authorizeUrl(linkUrl: string): string {
  const u = new URL(linkUrl);
  u.protocol = "https:";
  u.pathname += "/authorize";
  return u.href;
}

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: ErrorBody };
}

async function step(
  url: string,
  which: AuthorizeStep,
  fields: Record<string, string>,
  body?: unknown,
): Promise<Answer | { network: string }> {
  try {
    const res = await fetch(authorizeUrl(url), {
      method: "POST",
      headers: { Authorization: formatAuthorization(which, fields), "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
      credentials: "omit",
      cache: "no-store",
    });
    const parsed = (await res.json().catch(() => ({}))) as Answer["body"];
    return { status: res.status, body: parsed && typeof parsed === "object" ? parsed : {} };
  } catch (err) {
    return { network: err instanceof Error ? err.message : String(err) };
  }
}

function failure(a: Answer | { network: string }, host: string): Extract<AuthorizeOutcome, { ok: false }> {
  if ("network" in a) {
    return {
      ok: false,
      reason: "network",
      error: `could not reach ${host} over TLS (${a.network}): check the address, that the server runs, and that its certificate is valid for ${host}`,
    };
  }
  const e = a.body.error;
  const reason = e?.data?.reason;
  if (reason === "no_pairing_code")
    return {
      ok: false,
      reason: "no_code",
      error: "this pairing link was used or expired: run bsk daemon pair on the server and paste the new link",
    };
  if (reason === "pairing_failed")
    return { ok: false, reason: "wrong_code", error: "the pairing code did not match: paste the whole link again" };
  if (reason === "pairing_rate_limited" || a.status === 429)
    return { ok: false, reason: "rate_limited", error: `too many tries: ${e?.message ?? "try again shortly"}` };
  if (reason === "grant_expired") return { ok: false, reason: "expired", error: "the grant expired: pair again" };
  if (reason === "device_not_paired")
    return { ok: false, reason: "not_paired", error: "the server does not know this browser (revoked?): pair again" };
  return { ok: false, reason: "refused", error: `${host} refused (${a.status}): ${e?.message ?? "no reason given"}` };
}

/** The pairing exchange for a link the person confirmed. `who` goes to the server (devices list). */
export async function pairRemote(
  text: string,
  who: { label: string; browser: { name: string; version: string } },
): Promise<AuthorizeOutcome> {
  const parsed = parsePairingLink(text);
  if (!parsed.ok) return { ok: false, reason: "bad_link", error: `not a bsk pairing link: ${parsed.why}` };
  const link = parsed.link;
  const k = await pairingKey(link.code);
  const nonceE = randomBase64url(NONCE_BYTES);
  const begin = await step(link.url, "pair-begin", { nonce: nonceE });
  if ("network" in begin || begin.status !== 200) return failure(begin, link.host);
  const nonceD = typeof begin.body.nonce === "string" ? begin.body.nonce : "";
  const tr = (label: string, ...bound: string[]) => remoteTranscript(label, link.authority, nonceE, nonceD, ...bound);
  // The server proves the code and names the key the person saw; a server that cannot gets nothing from the code.
  if (
    !nonceD ||
    begin.body.key_id !== link.keyId ||
    typeof begin.body.challenge !== "string" ||
    !(await verifyHmac(k, tr(REMOTE_LABELS.pairDaemon, link.keyId), begin.body.proof))
  ) {
    return {
      ok: false,
      reason: "server_unproven",
      error: `${link.host} could not prove the pairing code and key ${link.keyId}: it is not the server that made this link`,
    };
  }
  const proof = toBase64url(await hmac(k, tr(REMOTE_LABELS.pairExtension)));
  const finish = await step(link.url, "pair-finish", { challenge: begin.body.challenge, proof }, who);
  if ("network" in finish || finish.status !== 200) return failure(finish, link.host);
  const sealed = fromBase64url(finish.body.sealed_secret);
  const b = finish.body;
  if (
    !sealed ||
    sealed.length !== SECRET_BYTES ||
    typeof b.device_id !== "string" ||
    !Number.isInteger(b.generation) ||
    typeof b.expires_at !== "string" ||
    typeof b.renew_after !== "string"
  ) {
    return { ok: false, reason: "malformed", error: "the server's answer made no sense: pair again" };
  }
  const secret = xorBytes(sealed, await hmac(k, tr(REMOTE_LABELS.seal)));
  return {
    ok: true,
    grant: {
      url: link.url,
      authority: link.authority,
      host: link.host,
      key_id: link.keyId,
      device_id: b.device_id,
      generation: b.generation as number,
      secret: toBase64url(secret),
      expires_at: b.expires_at,
      renew_after: b.renew_after,
      paired_at: Date.now(),
    },
  };
}

/** Renew a grant: the server proves the current secret first; the next one arrives sealed by it. */
export async function renewRemote(g: RemoteGrant): Promise<AuthorizeOutcome> {
  const secret = fromBase64url(g.secret);
  if (!secret) return { ok: false, reason: "malformed", error: "the stored grant is damaged: pair again" };
  const key = await importHmacKey(secret);
  const nonceE = randomBase64url(NONCE_BYTES);
  const begin = await step(g.url, "renew-begin", { device: g.device_id, generation: String(g.generation), nonce: nonceE });
  if ("network" in begin || begin.status !== 200) return failure(begin, g.host);
  const nonceD = typeof begin.body.nonce === "string" ? begin.body.nonce : "";
  const tr = (label: string) => remoteTranscript(label, g.authority, nonceE, nonceD, g.device_id);
  if (!nonceD || typeof begin.body.challenge !== "string" || !(await verifyHmac(key, tr(REMOTE_LABELS.renewDaemon), begin.body.proof))) {
    return { ok: false, reason: "server_unproven", error: `${g.host} could not prove this browser's grant` };
  }
  const finish = await step(g.url, "renew-finish", {
    challenge: begin.body.challenge,
    proof: toBase64url(await hmac(key, tr(REMOTE_LABELS.renewExtension))),
  });
  if ("network" in finish || finish.status !== 200) return failure(finish, g.host);
  const b = finish.body;
  const sealed = fromBase64url(b.sealed_secret);
  if (
    !sealed ||
    sealed.length !== SECRET_BYTES ||
    !Number.isInteger(b.generation) ||
    typeof b.expires_at !== "string" ||
    typeof b.renew_after !== "string"
  ) {
    return { ok: false, reason: "malformed", error: "the server's answer made no sense" };
  }
  const next = xorBytes(sealed, await hmac(key, tr(REMOTE_LABELS.seal)));
  return {
    ok: true,
    grant: { ...g, generation: b.generation as number, secret: toBase64url(next), expires_at: b.expires_at, renew_after: b.renew_after },
  };
}
