/**
 * Pairing codes from `bsk daemon pair`: one pending at a time (a new one replaces it), valid for `ttlMs`.
 *
 * Who asks the daemon to prove a code (`system.pair_begin`) makes a try. The rule, so that a local process guessing
 * cannot burn the person's code with one wrong try, nor guess for long:
 * - a code takes MAX_TRIES tries in all; the one that proves it burns it, and so does the last try, whatever its
 *   outcome (a 12-symbol code has ~59 bits: five guesses have no real chance);
 * - tries are taken at most one per `intervalMs` (1 s) across all links; a try sooner is refused without counting;
 * - a link makes one try at most (trust/link-trust.ts): a wrong proof closes it.
 */
import { BskError } from "../../protocol/errors.ts";
import { CODE_ALPHABET, CODE_LENGTH } from "../../protocol/trust.ts";
import { pairingKeyBytes } from "./proofs.ts";

export const MAX_TRIES = 5;

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
  tries: number;
}

/** A try: the code's key to prove it with, and `done(ok)` once the link's proof was checked. */
export type Try =
  | { ok: true; key: Uint8Array; triesLeft: number; done(paired: boolean): void }
  | { ok: false; reason: "no_pairing_code" }
  | { ok: false; reason: "pairing_rate_limited"; retryAfterMs: number };

export class PairingCodes {
  private pending: Pending | undefined;
  private lastTryAt = -Infinity;

  constructor(
    private readonly ttlMs: number,
    private readonly intervalMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  issue(): IssuedCode {
    const code = randomCode();
    const expiresAt = this.now() + this.ttlMs;
    this.pending = { key: pairingKeyBytes(code), expiresAt, tries: 0 };
    return { code, expiresAt };
  }

  /** Start a try on the pending code; a refused try changes nothing. */
  begin(): Try {
    const p = this.pending;
    const now = this.now();
    if (!p || now > p.expiresAt) {
      this.pending = undefined;
      return { ok: false, reason: "no_pairing_code" };
    }
    const wait = this.lastTryAt + this.intervalMs - now;
    if (wait > 0) return { ok: false, reason: "pairing_rate_limited", retryAfterMs: Math.ceil(wait) };
    this.lastTryAt = now;
    p.tries++;
    // The last try holds the key itself; nobody else can start one.
    if (p.tries >= MAX_TRIES) this.pending = undefined;
    return {
      ok: true,
      key: p.key,
      triesLeft: MAX_TRIES - p.tries,
      done: (paired) => {
        if (paired && this.pending === p) this.pending = undefined;
      },
    };
  }
}

/** Why a pairing try was not taken, as the error both the local link and a server's authorize answer with. */
export function pairingRefused(attempt: Extract<Try, { ok: false }>, hint?: string): BskError {
  if (attempt.reason === "pairing_rate_limited") {
    return new BskError("permission_denied", `too many pairing tries: one is taken per interval; try again in ${attempt.retryAfterMs} ms`, {
      data: { reason: "pairing_rate_limited", retry_after_ms: attempt.retryAfterMs },
    });
  }
  return new BskError(
    "not_found",
    `no pairing code is waiting (none was made, it expired, it was used, or it had its ${MAX_TRIES} tries)`,
    {
      hint,
      data: { reason: "no_pairing_code" },
    },
  );
}
