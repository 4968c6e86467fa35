/**
 * Message sizes on the extension link, and the pieces a large frame travels in.
 *
 * The daemon's WebSocket takes no message over LINK_MESSAGE_MAX_BYTES, so a peer that has proven nothing can make
 * it hold no more than that (16 MiB messages from 20 unproven links once took 600 MB). Before its handshake a link
 * sends only hello, handshake and pairing frames, refused above PRE_TRUST_FRAME_MAX_BYTES. After it, the extension
 * sends a frame that does not fit in one message as binary pieces of its UTF-8: each piece is a flag byte
 * (PIECE_MORE, or PIECE_LAST on the one that ends the frame) and up to LINK_MESSAGE_MAX_BYTES - 1 bytes; the daemon
 * joins them up to the 16 MiB frame cap. The daemon's own messages to the extension are not split.
 */
export const LINK_MESSAGE_MAX_BYTES = 64 * 1024;
export const PRE_TRUST_FRAME_MAX_BYTES = 16 * 1024;
export const PIECE_MORE = 1;
export const PIECE_LAST = 0;

const utf8 = new TextEncoder();

/** The messages that carry `text`: itself when it fits in one, else its binary pieces. */
export function framePieces(text: string, max: number = LINK_MESSAGE_MAX_BYTES): (string | Uint8Array)[] {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most frames fit without encoding them.
  if (text.length * 3 <= max) return [text];
  const bytes = utf8.encode(text);
  if (bytes.length <= max) return [text];
  const step = max - 1;
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += step) {
    const end = Math.min(at + step, bytes.length);
    const piece = new Uint8Array(1 + end - at);
    piece[0] = end === bytes.length ? PIECE_LAST : PIECE_MORE;
    piece.set(bytes.subarray(at, end), 1);
    pieces.push(piece);
  }
  return pieces;
}

export type Joined = { ok: true; text: string } | { ok: false; why: "too_large" | "malformed" };

/** Joins one link's pieces back into frames; never holds more than `maxBytes` of one. */
export class PieceJoiner {
  private parts: Uint8Array[] = [];
  private size = 0;
  private overflowed = false;
  private readonly decoder = new TextDecoder();

  constructor(private readonly maxBytes: number) {}

  /** A piece as received; a result once a frame ended, undefined while more are expected. */
  push(piece: Uint8Array): Joined | undefined {
    const flag = piece[0];
    if (flag !== PIECE_MORE && flag !== PIECE_LAST) {
      this.reset();
      return { ok: false, why: "malformed" };
    }
    const body = piece.subarray(1);
    if (!this.overflowed && this.size + body.length > this.maxBytes) {
      this.reset();
      this.overflowed = true;
    }
    if (!this.overflowed) {
      // The socket may reuse the message's memory once this returns: keep a copy.
      this.parts.push(body.slice());
      this.size += body.length;
    }
    if (flag === PIECE_MORE) return undefined;
    if (this.overflowed) {
      this.reset();
      return { ok: false, why: "too_large" };
    }
    const bytes = this.parts.length === 1 ? this.parts[0]! : concat(this.parts, this.size);
    this.reset();
    return { ok: true, text: this.decoder.decode(bytes) };
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
    this.overflowed = false;
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
