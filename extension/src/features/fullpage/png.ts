/**
 * A streaming PNG encoder (8-bit RGBA, filter None): rows go through the browser's own zlib (CompressionStream
 * "deflate") and come out as IDAT chunks, so an image of any height is never held whole. The header, which names
 * the height, is built last (pngHead) and replaces a same-sized placeholder at the start of the file.
 */
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(parts: Uint8Array[]): number {
  let c = 0xffffffff;
  for (const p of parts) for (let i = 0; i < p.length; i++) c = CRC_TABLE[(c ^ p[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  const typeBytes = new TextEncoder().encode(type);
  out.set(typeBytes, 4);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32([typeBytes, data]));
  return out;
}

const SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Signature and IHDR: 33 bytes. */
export const PNG_HEAD_BYTES = 33;

export function pngHead(width: number, height: number): Uint8Array {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit, RGBA, deflate, adaptive filtering, no interlace
  const out = new Uint8Array(PNG_HEAD_BYTES);
  out.set(SIGNATURE);
  out.set(pngChunk("IHDR", ihdr), 8);
  return out;
}

export const PNG_END = pngChunk("IEND", new Uint8Array(0));

/** IDAT chunks this large (before compression output is cut into them). */
const IDAT_BYTES = 1024 * 1024;

export class RowEncoder {
  private readonly writer: WritableStreamDefaultWriter<BufferSource>;
  private readonly pump: Promise<void>;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  rows = 0;

  constructor(
    readonly width: number,
    private readonly emit: (bytes: Uint8Array) => Promise<void>,
  ) {
    const cs = new CompressionStream("deflate");
    this.writer = cs.writable.getWriter();
    const reader = cs.readable.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    this.pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.pending.push(value);
        this.pendingBytes += value.length;
        if (this.pendingBytes >= IDAT_BYTES) await this.flush();
      }
      await this.flush();
    })();
    // A failed emit stops reading; abort the writer so a write waiting on backpressure fails instead of hanging.
    this.pump.catch((err: unknown) => this.writer.abort(err).catch(() => undefined));
  }

  private async flush(): Promise<void> {
    if (!this.pendingBytes) return;
    const data = new Uint8Array(this.pendingBytes);
    let off = 0;
    for (const p of this.pending) {
      data.set(p, off);
      off += p.length;
    }
    this.pending = [];
    this.pendingBytes = 0;
    await this.emit(pngChunk("IDAT", data));
  }

  /** RGBA pixels of `count` whole rows of this width. */
  async addRows(rgba: Uint8ClampedArray, count: number): Promise<void> {
    const stride = this.width * 4;
    const out = new Uint8Array(count * (stride + 1));
    for (let r = 0; r < count; r++) out.set(rgba.subarray(r * stride, (r + 1) * stride), r * (stride + 1) + 1);
    this.rows += count;
    await this.writer.write(out);
  }

  async end(): Promise<void> {
    await this.writer.close();
    await this.pump;
  }

  abort(): void {
    this.writer.abort().catch(() => undefined);
  }
}
