/**
 * A scripted remote extension's authorize side (protocol/remote.ts): pair with a link's code, renew a grant, each step
 * checked the way the real extension checks it (the server proves first). node:crypto over the same transcripts.
 */
import { createHash, createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { formatAuthorization, REMOTE_LABELS, remoteTranscript, type AuthorizeStep, type PairingLink } from "../../protocol/remote.ts";
import { fromBase64url, LABELS, NONCE_BYTES, normalizeCode, randomBase64url, toBase64url, xorBytes } from "../../protocol/trust.ts";

export interface Device {
  id: string;
  generation: number;
  secret: Uint8Array;
  expiresAt: string;
  renewAfter: string;
}

export interface Target {
  /** Where the requests go (the server itself, or a proxy in front of it). */
  url: string;
  /** What the proofs bind: the pairing link's authority. */
  authority: string;
  ca?: string;
  origin?: string;
  /** Send from this local address (127.0.0.2, …): another peer on the same machine. */
  from?: string;
  /** Headers besides the extension's own (a rogue's X-Forwarded-For). */
  headers?: Record<string, string>;
}

function mac(key: Uint8Array, text: string): Uint8Array {
  return new Uint8Array(createHmac("sha256", key).update(text).digest());
}

export function authorizeUrl(linkUrl: string): string {
  const u = new URL(linkUrl);
  u.protocol = u.protocol === "wss:" ? "https:" : "http:";
  u.pathname += "/authorize";
  return u.href;
}

export interface Raw {
  status: number;
  body: any;
  retryAfter?: string | null;
}

/** One authorize step, as the extension sends it. */
export async function step(t: Target, which: AuthorizeStep, fields: Record<string, string>, body?: unknown): Promise<Raw> {
  const headers = {
    Origin: t.origin ?? `chrome-extension://${EXTENSION_ID}`,
    Authorization: formatAuthorization(which, fields),
    "content-type": "application/json",
    ...t.headers,
  };
  const sent = JSON.stringify(body ?? {});
  if (t.from) return sendFrom(t.from, authorizeUrl(t.url), headers, sent, t.ca);
  const res = await fetch(authorizeUrl(t.url), {
    method: "POST",
    headers,
    body: sent,
    ...(t.ca && { tls: { ca: t.ca } }),
  } as RequestInit);
  return { status: res.status, body: parseBody(await res.text()), retryAfter: res.headers.get("retry-after") };
}

function parseBody(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A POST from a chosen local address (fetch cannot bind one; node:http(s) can). */
function sendFrom(from: string, url: string, headers: Record<string, string>, body: string, ca?: string): Promise<Raw> {
  const u = new URL(url);
  const request = u.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", servername: u.hostname, port: u.port, path: u.pathname, method: "POST", localAddress: from, headers, ca },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: parseBody(text), retryAfter: (res.headers["retry-after"] as string) ?? null }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

export class AuthorizeError extends Error {
  constructor(
    readonly raw: Raw,
    what: string,
  ) {
    super(`${what}: ${raw.status} ${JSON.stringify(raw.body)}`);
  }
}

/** Pair with the link's code: the server proves the code and its key id first; the device's secret arrives sealed. */
export async function pair(
  t: Target,
  link: Pick<PairingLink, "code" | "keyId">,
  who = { label: "remote-test", browser: { name: "Chromium", version: "156.0" } },
): Promise<Device> {
  const k = new Uint8Array(
    createHash("sha256")
      .update(`${LABELS.pairingKey}\n${normalizeCode(link.code)}`)
      .digest(),
  );
  const nonceE = randomBase64url(NONCE_BYTES);
  const begin = await step(t, "pair-begin", { nonce: nonceE });
  if (begin.status !== 200) throw new AuthorizeError(begin, "pair-begin");
  const nonceD = begin.body.nonce as string;
  const tr = (label: string, ...bound: string[]) => remoteTranscript(label, t.authority, nonceE, nonceD, ...bound);
  if (begin.body.key_id !== link.keyId || toBase64url(mac(k, tr(REMOTE_LABELS.pairDaemon, link.keyId))) !== begin.body.proof) {
    throw new Error("the server did not prove the pairing code and key");
  }
  const finish = await step(
    t,
    "pair-finish",
    { challenge: begin.body.challenge, proof: toBase64url(mac(k, tr(REMOTE_LABELS.pairExtension))) },
    who,
  );
  if (finish.status !== 200) throw new AuthorizeError(finish, "pair-finish");
  const secret = xorBytes(fromBase64url(finish.body.sealed_secret)!, mac(k, tr(REMOTE_LABELS.seal)));
  return {
    id: finish.body.device_id,
    generation: finish.body.generation,
    secret,
    expiresAt: finish.body.expires_at,
    renewAfter: finish.body.renew_after,
  };
}

/** Renew the grant: the server proves the device's secret first; the next secret arrives sealed by the current one. */
export async function renew(t: Target, d: Device): Promise<Device> {
  const nonceE = randomBase64url(NONCE_BYTES);
  const begin = await step(t, "renew-begin", { device: d.id, generation: String(d.generation), nonce: nonceE });
  if (begin.status !== 200) throw new AuthorizeError(begin, "renew-begin");
  const nonceD = begin.body.nonce as string;
  const tr = (label: string) => remoteTranscript(label, t.authority, nonceE, nonceD, d.id);
  if (toBase64url(mac(d.secret, tr(REMOTE_LABELS.renewDaemon))) !== begin.body.proof)
    throw new Error("the server did not prove the device's secret");
  const finish = await step(t, "renew-finish", {
    challenge: begin.body.challenge,
    proof: toBase64url(mac(d.secret, tr(REMOTE_LABELS.renewExtension))),
  });
  if (finish.status !== 200) throw new AuthorizeError(finish, "renew-finish");
  const secret = xorBytes(fromBase64url(finish.body.sealed_secret)!, mac(d.secret, tr(REMOTE_LABELS.seal)));
  return { id: d.id, generation: finish.body.generation, secret, expiresAt: finish.body.expires_at, renewAfter: finish.body.renew_after };
}
