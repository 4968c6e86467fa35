/**
 * The proof on the CLI link: before any request travels (typed secrets travel on it), the CLI and the daemon prove
 * to each other that they hold `$BSK_HOME/link.key` (link-key.ts), which only this user can read. Independent of
 * the transport (Unix socket, loopback TCP, a Windows pipe), which only names itself in the transcript.
 *
 *   CLI    → {"link":"hello","v":1,"nonce":Nc}
 *   daemon → {"link":"proof","nonce":Nd,"proof":HMAC(key, DAEMON | transport | Nc | Nd)}
 *   CLI checks it (else closes: an impostor got a random nonce and nothing else), then
 *   CLI    → {"link":"proof","proof":HMAC(key, CLI | transport | Nc | Nd)}  and, on the same write, its first request
 *   daemon checks it before it reads anything more (else one permission_denied frame, reason unproven_client, closed)
 *
 * Both nonces are fresh per connection, so a proof seen on one connection fails on any other; the labels name the
 * direction, so a daemon's proof reflected back is no CLI's; the transport is the endpoint as each side sees it (the
 * socket's path, the TCP port), so a listener elsewhere that relays a real daemon's proof fails. One round trip
 * before the first request. Pure: no I/O, only Bun's HMAC (no node:crypto on the CLI's path).
 */
import { BskError } from "../protocol/errors.ts";

export const LINK_KEY_BYTES = 32;
const NONCE_BYTES = 32;
/** base64url length of NONCE_BYTES and of a SHA-256 MAC. */
const B64_32 = 43;
export const LINK_PROOF_VERSION = 1;
/** How long either side waits for the other's proof. */
export const LINK_PROOF_MS = 5_000;
/** The largest line either side reads before the proof: a keyless peer gets no more of the daemon's memory. */
export const LINK_HELLO_MAX_BYTES = 1_024;

export const LINK_LABELS = { daemon: "bsk-link-daemon/1", cli: "bsk-link-cli/1" } as const;

/** The transcript's name of a Unix socket (its path) and of the daemon's loopback TCP port. */
export function unixTransport(path: string): string {
  return `unix:${path}`;
}
export function tcpTransport(port: number): string {
  return `tcp:127.0.0.1:${port}`;
}

export function linkMac(key: Uint8Array, label: string, transport: string, nonceCli: string, nonceDaemon: string): string {
  const h = new Bun.CryptoHasher("sha256", key);
  h.update(`${label}\n${transport}\n${nonceCli}\n${nonceDaemon}`);
  return h.digest("base64url");
}

function nonce(): string {
  return crypto.getRandomValues(new Uint8Array(NONCE_BYTES)).toBase64({ alphabet: "base64url", omitPadding: true });
}

/** Same string, compared in time that does not depend on where they differ. */
export function sameMac(given: unknown, expected: string): boolean {
  if (typeof given !== "string" || given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}

function parseLine(line: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function isNonce(v: unknown): v is string {
  return typeof v === "string" && v.length === B64_32;
}

// ---------------------------------------------------------------- the CLI's side

export interface ClientHello {
  nonce: string;
  /** The line to send first (newline included). */
  line: string;
}

export function clientHello(): ClientHello {
  const n = nonce();
  return { nonce: n, line: `${JSON.stringify({ link: "hello", v: LINK_PROOF_VERSION, nonce: n })}\n` };
}

/**
 * The daemon's answer to our hello: the line that proves us (send it, then the request), or why the peer is no
 * daemon of this key (send nothing more).
 */
export function answerDaemon(
  key: Uint8Array,
  transport: string,
  hello: ClientHello,
  line: string,
): { ok: true; line: string } | { ok: false; why: string } {
  const msg = parseLine(line);
  if (msg && "error" in msg && msg.id === null) {
    const e = msg.error as { message?: unknown } | null;
    return { ok: false, why: `it answered the hello with an error (${typeof e?.message === "string" ? e.message : "no message"})` };
  }
  if (msg?.link !== "proof" || !isNonce(msg.nonce)) return { ok: false, why: "it did not answer with a proof" };
  if (!sameMac(msg.proof, linkMac(key, LINK_LABELS.daemon, transport, hello.nonce, msg.nonce)))
    return { ok: false, why: "its proof does not match this home's link key" };
  const proof = linkMac(key, LINK_LABELS.cli, transport, hello.nonce, msg.nonce);
  return { ok: true, line: `${JSON.stringify({ link: "proof", proof })}\n` };
}

// ---------------------------------------------------------------- the daemon's side

export type ServerStep = { kind: "reply"; line: string } | { kind: "proven" } | { kind: "refused"; why: string };

/** One connection's proof on the daemon's side: feed it each line until it says proven or refused. */
export class LinkProofServer {
  private expected: string | undefined;

  constructor(
    private readonly key: Uint8Array,
    private readonly transport: string,
  ) {}

  take(line: string): ServerStep {
    const msg = parseLine(line);
    if (this.expected === undefined) {
      if (msg?.link !== "hello") return { kind: "refused", why: "it sent a request before proving it holds this home's link key" };
      if (msg.v !== LINK_PROOF_VERSION)
        return { kind: "refused", why: `it speaks link proof version ${String(msg.v)}, not ${LINK_PROOF_VERSION}` };
      if (!isNonce(msg.nonce)) return { kind: "refused", why: "its hello carries no valid nonce" };
      const mine = nonce();
      this.expected = linkMac(this.key, LINK_LABELS.cli, this.transport, msg.nonce, mine);
      const proof = linkMac(this.key, LINK_LABELS.daemon, this.transport, msg.nonce, mine);
      return { kind: "reply", line: `${JSON.stringify({ link: "proof", nonce: mine, proof })}\n` };
    }
    if (msg?.link !== "proof" || !sameMac(msg.proof, this.expected))
      return { kind: "refused", why: "its proof does not match this home's link key" };
    return { kind: "proven" };
  }
}

// ---------------------------------------------------------------- errors

/** The daemon's one frame to a client that did not prove the key. */
export function unprovenClient(why: string): BskError {
  return new BskError("permission_denied", `this bsk daemon serves only clients that hold its link key: ${why}`, {
    data: { reason: "unproven_client" },
  });
}

/** The CLI's refusal of a listener that did not prove the key: nothing but the hello was sent to it. */
export function unprovenDaemon(transport: string, why: string): BskError {
  return new BskError("permission_denied", `refusing the bsk daemon at ${transport}: ${why}; only a random nonce was sent`, {
    data: { reason: "unproven_daemon", transport },
  });
}

/** Something listens but proved nothing in time: a hung daemon (or a silent listener); only the hello went out. */
export function unansweredProof(transport: string): BskError {
  return new BskError(
    "timeout",
    `the bsk daemon at ${transport} did not prove itself within ${LINK_PROOF_MS / 1000} s; only a random nonce was sent`,
    {
      hint: "The daemon may be hung: bsk daemon stop (it is killed when it does not answer), then retry; bsk doctor --fix does both.",
      data: { reason: "daemon_unresponsive", transport },
    },
  );
}

/** The CLI cannot read this home's link key, so it cannot prove itself (nor check the daemon). */
export function linkKeyUnreadable(path: string, why: string): BskError {
  return new BskError("permission_denied", `cannot read the bsk link key ${path}: ${why}`, {
    data: { reason: "no_link_key", path },
  });
}
