/**
 * screenshot.full_page --tiles: the rows go into PNGs of at most `rowsPerTile` rows each, written one after another
 * into the one staged transfer; each image's place in it (offset, bytes) and on the page goes back with the reply,
 * and the CLI writes each to a file of its own. A tile's compressed rows are held until it ends, as its header names
 * its height.
 */
import { claudeImageTokens } from "../../../../protocol/image-tokens.ts";
import type { TransferOut } from "../files/transfer-out.ts";
import { PNG_END, pngHead, RowEncoder } from "./png.ts";

export interface Tile {
  offset: number;
  bytes: number;
  /** The tile's first row in the whole image. */
  row: number;
  width: number;
  height: number;
  claude_tokens: number;
}

export class TiledPng {
  private encoder: RowEncoder | null = null;
  private parts: Uint8Array[] = [];
  private firstRow = 0;
  rows = 0;
  readonly tiles: Tile[] = [];

  constructor(
    readonly width: number,
    private readonly rowsPerTile: number,
    private readonly out: TransferOut,
  ) {}

  /** RGBA pixels of `count` whole rows of this width. */
  async addRows(rgba: Uint8ClampedArray, count: number): Promise<void> {
    const stride = this.width * 4;
    for (let done = 0; done < count; ) {
      if (!this.encoder) {
        this.encoder = new RowEncoder(this.width, async (b) => void this.parts.push(b));
        this.firstRow = this.rows;
      }
      const n = Math.min(count - done, this.rowsPerTile - this.encoder.rows);
      await this.encoder.addRows(rgba.subarray(done * stride), n);
      done += n;
      this.rows += n;
      if (this.encoder.rows === this.rowsPerTile) await this.end();
    }
  }

  /** Ends the tile being filled, if any, and writes it out. */
  async end(): Promise<void> {
    const encoder = this.encoder;
    if (!encoder) return;
    this.encoder = null;
    await encoder.end();
    const offset = this.out.size;
    await this.out.push(pngHead(this.width, encoder.rows));
    for (const part of this.parts) await this.out.push(part);
    await this.out.push(PNG_END);
    this.parts = [];
    const height = encoder.rows;
    this.tiles.push({
      offset,
      bytes: this.out.size - offset,
      row: this.firstRow,
      width: this.width,
      height,
      claude_tokens: claudeImageTokens(this.width, height),
    });
  }

  abort(): void {
    this.encoder?.abort();
    this.parts = [];
  }
}
