/** Session ids: 4 characters an agent or a person cannot misread (no i, l, o, 0, 1), never reused. */
import { BskError } from "../protocol/errors.ts";

export const ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
export const ID_LENGTH = 4;
const SPACE = ID_ALPHABET.length ** ID_LENGTH;
/** Largest multiple of the alphabet size below 256, so each byte maps without bias. */
const BYTE_LIMIT = 256 - (256 % ID_ALPHABET.length);

export function isSessionIdShape(id: string): boolean {
  return id.length === ID_LENGTH && [...id].every((c) => ID_ALPHABET.includes(c));
}

/** A fresh id not in `issued`. `random` fills a byte array (injectable for tests). */
export function newSessionId(issued: ReadonlySet<string>, random: (bytes: Uint8Array) => void = (b) => crypto.getRandomValues(b)): string {
  if (issued.size >= SPACE) {
    throw new BskError("unsupported", "every session id has been used in this bsk home", {
      hint: "Start over with a new BSK_HOME.",
    });
  }
  const bytes = new Uint8Array(32);
  // Random draws while the space is sparse; a linear probe from a random start once draws keep colliding.
  for (let attempt = 0; attempt < 64; attempt++) {
    random(bytes);
    let id = "";
    for (const b of bytes) {
      if (b >= BYTE_LIMIT) continue;
      id += ID_ALPHABET[b % ID_ALPHABET.length];
      if (id.length === ID_LENGTH) break;
    }
    if (id.length === ID_LENGTH && !issued.has(id)) return id;
  }
  random(bytes);
  const start = ((bytes[0]! << 16) | (bytes[1]! << 8) | bytes[2]!) % SPACE;
  for (let i = 0; i < SPACE; i++) {
    const id = idAt((start + i) % SPACE);
    if (!issued.has(id)) return id;
  }
  throw new BskError("unsupported", "every session id has been used in this bsk home");
}

function idAt(n: number): string {
  let id = "";
  for (let i = 0; i < ID_LENGTH; i++) {
    id = ID_ALPHABET[n % ID_ALPHABET.length] + id;
    n = Math.floor(n / ID_ALPHABET.length);
  }
  return id;
}
