import { describe, expect, test } from "bun:test";
import { framePieces, LINK_MESSAGE_MAX_BYTES, PIECE_LAST, PIECE_MORE, PieceJoiner } from "../../protocol/pieces.ts";

const join = (pieces: (string | Uint8Array)[], joiner = new PieceJoiner(16 << 20)) => {
  const out = [];
  for (const p of pieces) {
    if (typeof p === "string") throw new Error("a text message is not a piece");
    const r = joiner.push(p);
    if (r) out.push(r);
  }
  return out;
};

describe("pieces of a large frame on the extension link", () => {
  test("a frame that fits goes as itself", () => {
    const text = JSON.stringify({ id: 1, result: "x".repeat(1000) });
    expect(framePieces(text)).toEqual([text]);
    // Many multi-byte characters that still fit once encoded.
    const wide = "é".repeat(30_000);
    expect(framePieces(wide)).toEqual([wide]);
  });

  test("a larger one goes as binary pieces no bigger than a message, and joins back exactly, multi-byte text included", () => {
    const text = JSON.stringify({ id: "x1", result: { title: "é😀中".repeat(50_000), png: "A".repeat(300_000) } });
    const pieces = framePieces(text);
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) {
      expect(p).toBeInstanceOf(Uint8Array);
      expect((p as Uint8Array).length).toBeLessThanOrEqual(LINK_MESSAGE_MAX_BYTES);
    }
    expect(pieces.map((p) => (p as Uint8Array)[0])).toEqual([...Array(pieces.length - 1).fill(PIECE_MORE), PIECE_LAST]);
    expect(join(pieces)).toEqual([{ ok: true, text }]);
  });

  test("pieces past the cap are dropped to the frame's end, reported once, and the next frame joins", () => {
    const joiner = new PieceJoiner(100_000);
    const big = framePieces("b".repeat(300_000));
    const small = framePieces(`"${"s".repeat(70_000)}"`);
    expect(join([...big, ...small], joiner)).toEqual([
      { ok: false, why: "too_large" },
      { ok: true, text: `"${"s".repeat(70_000)}"` },
    ]);
  });

  test("a binary message without a piece flag is malformed", () => {
    expect(new PieceJoiner(100).push(new Uint8Array([7, 1, 2]))).toEqual({ ok: false, why: "malformed" });
    expect(new PieceJoiner(100).push(new Uint8Array([]))).toEqual({ ok: false, why: "malformed" });
  });
});
