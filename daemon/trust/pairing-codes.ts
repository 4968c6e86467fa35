/**
 * Pairing codes from `bsk daemon pair`: one pending at a time (a new one replaces it), valid for `ttlMs`, and
 * burnt by the first pairing attempt whatever its outcome, so whoever asks the daemon to prove a code gets one
 * try at most (a wrong or stolen attempt just means the person runs `bsk daemon pair` again).
 */
import { CODE_ALPHABET, CODE_LENGTH } from "../../protocol/trust.ts";
import { pairingKeyBytes } from "./proofs.ts";

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

export class PairingCodes {
  private pending: { key: Uint8Array; expiresAt: number } | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  issue(): IssuedCode {
    const code = randomCode();
    const expiresAt = this.now() + this.ttlMs;
    this.pending = { key: pairingKeyBytes(code), expiresAt };
    return { code, expiresAt };
  }

  /** The pending code's key, burning it; undefined when there is none or it expired. */
  take(): Uint8Array | undefined {
    const p = this.pending;
    this.pending = undefined;
    if (!p || this.now() > p.expiresAt) return undefined;
    return p.key;
  }
}
