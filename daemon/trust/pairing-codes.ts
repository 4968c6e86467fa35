/**
 * Pairing codes from `bsk daemon pair`: one pending at a time (a new one replaces it), valid for `ttlMs`.
 *
 * Who asks the daemon to prove a code (`system.pair_begin`, or a server's `pair-begin`) makes a try. A wrong try never
 * uses the code up: someone who does not know it must not be able to stop the person from pairing. Instead tries are
 * limited, per code (a new code starts afresh), and a try refused by a limit does not count:
 * - per peer address (an IPv6 address by its /64, `peerKey`): after its n-th try a peer waits `intervalMs` × 2^(n-1)
 *   (1 s, 2 s, 4 s, …), so one address makes about log2(ttl / interval) + 1 tries in a code's life (9 in 5 minutes);
 * - across all peers: a bucket of GLOBAL_BURST tries refilled one per `intervalMs`, the refill slowing by half after
 *   every GLOBAL_STEP tries, to at most one per GLOBAL_MAX_SLOWDOWN × `intervalMs` (docs/remote.md has the arithmetic);
 * - the try that proves the code burns it; so do its expiry and a new code.
 * A link makes one try at most (trust/link-trust.ts): a wrong proof closes it.
 */
import { BskError } from "../../protocol/errors.ts";
import { CODE_ALPHABET, CODE_LENGTH } from "../../protocol/trust.ts";
import { peerKey } from "../remote/limits.ts";
import { pairingKeyBytes } from "./proofs.ts";

export const GLOBAL_BURST = 10;
export const GLOBAL_STEP = 20;
export const GLOBAL_MAX_SLOWDOWN = 32;
/** Peers remembered per code at most; the oldest are forgotten first (more addresses than this meet the global limit). */
const MAX_PEERS = 10_000;

export interface IssuedCode {
  code: string;
  expiresAt: number;
}

export function randomCode(): string {
  // Rejection sampling keeps every symbol equally likely.
  const out: string[] = [];
  const limit = 256 - (256 % CODE_ALPHABET.length);
  while (out.length < CODE_LENGTH) {
    for (const b of crypto.getRandomValues(new Uint8Array(CODE_LENGTH * 2))) {
      if (b < limit && out.length < CODE_LENGTH) out.push(CODE_ALPHABET[b % CODE_ALPHABET.length]!);
    }
  }
  return out.join("");
}

interface Pending {
  key: Uint8Array;
  expiresAt: number;
  /** Tries taken on this code, by anyone. */
  tries: number;
  /** The global bucket: tokens left as of `at`. */
  tokens: number;
  at: number;
  /** Per peer: its tries and when it may try next. */
  peers: Map<string, { tries: number; nextAt: number }>;
}

/** A try: the code's key to prove it with, and `done(ok)` once the proof was checked. */
export type Try =
  | { ok: true; key: Uint8Array; nextTryInMs: number; done(paired: boolean): void }
  | { ok: false; reason: "no_pairing_code" }
  | { ok: false; reason: "pairing_rate_limited"; retryAfterMs: number; scope: "peer" | "all" };

export class PairingCodes {
  private pending: Pending | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly intervalMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  issue(): IssuedCode {
    const code = randomCode();
    const now = this.now();
    const expiresAt = now + this.ttlMs;
    this.pending = { key: pairingKeyBytes(code), expiresAt, tries: 0, tokens: GLOBAL_BURST, at: now, peers: new Map() };
    return { code, expiresAt };
  }

  /** Start a try on the pending code for `peer` (its address); a refused try changes nothing. */
  begin(peer: string): Try {
    const p = this.pending;
    const now = this.now();
    if (!p || now > p.expiresAt) {
      this.pending = undefined;
      return { ok: false, reason: "no_pairing_code" };
    }
    const who = peerKey(peer);
    const mine = p.peers.get(who);
    if (mine && mine.nextAt > now)
      return { ok: false, reason: "pairing_rate_limited", retryAfterMs: Math.ceil(mine.nextAt - now), scope: "peer" };
    const refillMs = this.intervalMs * Math.min(GLOBAL_MAX_SLOWDOWN, 2 ** Math.floor(p.tries / GLOBAL_STEP));
    const tokens = refillMs > 0 ? Math.min(GLOBAL_BURST, p.tokens + (now - p.at) / refillMs) : GLOBAL_BURST;
    if (tokens < 1) return { ok: false, reason: "pairing_rate_limited", retryAfterMs: Math.ceil((1 - tokens) * refillMs), scope: "all" };
    p.tokens = tokens - 1;
    p.at = now;
    p.tries++;
    const tries = (mine?.tries ?? 0) + 1;
    const nextTryInMs = this.intervalMs * 2 ** Math.min(tries - 1, 30);
    p.peers.delete(who);
    p.peers.set(who, { tries, nextAt: now + nextTryInMs });
    if (p.peers.size > MAX_PEERS) p.peers.delete(p.peers.keys().next().value!);
    return {
      ok: true,
      key: p.key,
      nextTryInMs,
      done: (paired) => {
        if (paired && this.pending === p) this.pending = undefined;
      },
    };
  }
}

/** Why a pairing try was not taken, as the error both the local link and a server's authorize answer with. */
export function pairingRefused(attempt: Extract<Try, { ok: false }>, hint?: string): BskError {
  if (attempt.reason === "pairing_rate_limited") {
    const who = attempt.scope === "peer" ? "from this address" : "from everyone together";
    return new BskError("permission_denied", `too many pairing tries ${who}; the next is taken in ${attempt.retryAfterMs} ms`, {
      data: { reason: "pairing_rate_limited", retry_after_ms: attempt.retryAfterMs, scope: attempt.scope },
    });
  }
  return new BskError("not_found", "no pairing code is waiting (none was made, it expired, or it was used)", {
    hint,
    data: { reason: "no_pairing_code" },
  });
}
