/**
 * Server mode's listen settings, checked before anything listens: the public URL is wss://HOST[:PORT]/extension;
 * with a certificate the daemon terminates TLS itself and the certificate must name the public URL's host; without
 * one it serves a reverse proxy on loopback only (any other address is refused: the link would travel in clear).
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { BskError } from "../../protocol/errors.ts";
import { authorityOf, parsePublicUrl } from "../../protocol/remote.ts";
import { isLoopbackAddress } from "../gateway-policy.ts";
import { canonicalAddress } from "./limits.ts";

export interface ServerModeOptions {
  listen: string;
  port: number;
  publicUrl: string;
  tlsCert?: string;
  tlsKey?: string;
  /** Addresses of reverse proxies whose X-Forwarded-For is believed (--trusted-proxy); none by default. */
  trustedProxies?: string[];
}

export interface ServerMode {
  listen: string;
  port: number;
  publicUrl: string;
  /** host:port of the public URL: what every remote proof binds. */
  authority: string;
  publicHost: string;
  tls?: { certFile: string; keyFile: string };
  /** Canonical addresses (limits.ts `canonicalAddress`) whose X-Forwarded-For names the peer; empty: the first hop is the peer. */
  trustedProxies: string[];
}

function bad(message: string, reason: string, hint?: string): BskError {
  return new BskError("invalid_params", message, { data: { reason }, hint });
}

export function resolveServerMode(o: ServerModeOptions): ServerMode {
  const parsed = parsePublicUrl(o.publicUrl);
  if (!parsed.ok)
    throw bad(
      `--public-url ${o.publicUrl}: ${parsed.why}`,
      "bad_public_url",
      "Give the URL the browser dials: wss://HOST[:PORT]/extension.",
    );
  const url = parsed.url;
  if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) throw bad("give --tls-cert and --tls-key together", "tls_incomplete");
  const trustedProxies = (o.trustedProxies ?? []).map((a) => a.trim()).filter((a) => a !== "");
  for (const a of trustedProxies) {
    if (!isIP(a))
      throw bad(
        `--trusted-proxy ${a}: not an IP address`,
        "bad_trusted_proxy",
        "Give the address the proxy connects from (nginx: its proxy_bind), e.g. --trusted-proxy 127.0.0.2.",
      );
  }
  const mode: ServerMode = {
    listen: o.listen,
    port: o.port,
    publicUrl: url.href,
    authority: authorityOf(url),
    publicHost: url.hostname,
    trustedProxies: trustedProxies.map(canonicalAddress),
  };
  if (o.tlsCert && o.tlsKey) {
    checkCertificate(o.tlsCert, o.tlsKey, url.hostname);
    mode.tls = { certFile: o.tlsCert, keyFile: o.tlsKey };
  } else if (!isLoopbackAddress(o.listen) && o.listen !== "localhost") {
    throw bad(
      `without a certificate the server listens on loopback only (for a reverse proxy), not on ${o.listen}`,
      "plain_listen_not_loopback",
      "Give --tls-cert and --tls-key, or --listen 127.0.0.1 behind a TLS proxy (docs/remote.md).",
    );
  }
  return mode;
}

/** The certificate (first in the file) must be readable, current, and name `host`; the key must be readable. */
export function checkCertificate(certFile: string, keyFile: string, host: string): void {
  let pem: string;
  try {
    pem = readFileSync(certFile, "utf8");
    readFileSync(keyFile);
  } catch (err) {
    throw bad(`cannot read the TLS certificate or key: ${(err as Error).message}`, "tls_unreadable");
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    throw bad(`${certFile} is not a PEM certificate`, "tls_bad_certificate");
  }
  const names = cert.subjectAltName ?? cert.subject;
  const matches = /^\d+\.\d+\.\d+\.\d+$|:/.test(host) ? cert.checkIP(host) !== undefined : cert.checkHost(host) !== undefined;
  if (!matches) {
    throw bad(
      `the certificate does not match the public URL's host ${host} (it names ${names})`,
      "tls_host_mismatch",
      "Use a certificate for that host, or the --public-url the certificate is for.",
    );
  }
  const now = Date.now();
  if (Date.parse(cert.validTo) <= now || Date.parse(cert.validFrom) > now) {
    throw bad(`the certificate is not valid now (valid ${cert.validFrom} to ${cert.validTo})`, "tls_expired");
  }
}
