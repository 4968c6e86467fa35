/**
 * Splits a byte stream into lines without ever holding more than `maxBytes` of one line: past the cap
 * the line is dropped up to its newline and `onOverflow` is called once for it.
 */
const NL = 10;

export class LineReader {
  private parts: Uint8Array[] = [];
  private size = 0;
  private discarding = false;
  private readonly decoder = new TextDecoder();

  constructor(
    /** May change between lines (the CLI link reads at most a small line until the peer proved its key). */
    public maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NL, start);
      if (nl === -1) break;
      const segment = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      if (this.size + segment.length > this.maxBytes) {
        this.reset();
        this.onOverflow();
        continue;
      }
      this.emit(segment);
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || this.discarding) return;
    if (this.size + rest.length > this.maxBytes) {
      this.reset();
      this.discarding = true;
      this.onOverflow();
      return;
    }
    // The chunk's buffer may be reused by the socket after this call: keep a copy.
    this.parts.push(rest.slice());
    this.size += rest.length;
  }

  private emit(tail: Uint8Array): void {
    let bytes = tail;
    if (this.parts.length) {
      this.parts.push(tail);
      bytes = Buffer.concat(this.parts);
      this.reset();
    }
    let line = this.decoder.decode(bytes);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.trim() !== "") this.onLine(line);
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
  }
}
