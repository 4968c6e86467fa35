/**
 * Bytes the extension produces (a download it took from the page, a full-page capture) go to the daemon as a staged
 * transfer: transfer.begin, transfer.chunk in batches a little under the daemon's per-chunk cap, transfer.finish.
 * The daemon checks the caps as the bytes arrive and hashes them; release() drops what was staged.
 */
import type { Result } from "../../../../protocol/catalog.ts";
import { BskError } from "../../../../protocol/errors.ts";
import { call } from "../../ports/to-daemon.ts";
import { toBase64 } from "../../shared/base64.ts";
import type { Progress } from "../../shared/handler.ts";

const DAEMON_TIMEOUT_MS = 30_000;
/** Bytes per transfer.chunk (a little under the 3 MiB the daemon takes per chunk). */
const SEND_BYTES = 2 * 1024 * 1024;

/** Whose bytes these are: the session, and for a download a page started, which one (listed by `bsk downloads`). */
export interface DownloadMeta {
  sessionId: string;
  download?: { id: string; tab_id: number; url: string };
}

export type Finished = Result<"transfer.finish">;

export class TransferOut {
  private offset = 0;
  private parts: Uint8Array[] = [];
  private pending = 0;

  private constructor(
    private readonly sessionId: string,
    readonly transferId: string,
    private readonly signal: AbortSignal,
  ) {}

  static async begin(
    sessionId: string,
    name: string,
    mime: string,
    signal: AbortSignal,
    download?: DownloadMeta["download"],
  ): Promise<TransferOut> {
    const begun = await call(
      "transfer.begin",
      { session_id: sessionId, name, ...(mime && { mime }), ...(download && { download }) },
      DAEMON_TIMEOUT_MS,
      signal,
    );
    return new TransferOut(sessionId, begun.transfer_id, signal);
  }

  /** Bytes pushed so far (sent or batched). */
  get size(): number {
    return this.offset + this.pending;
  }

  async push(bytes: Uint8Array): Promise<void> {
    this.parts.push(bytes);
    this.pending += bytes.length;
    if (this.pending >= SEND_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.pending) return;
    const data = new Uint8Array(this.pending);
    let o = 0;
    for (const p of this.parts) {
      data.set(p, o);
      o += p.length;
    }
    this.parts = [];
    this.pending = 0;
    await call(
      "transfer.chunk",
      { session_id: this.sessionId, transfer_id: this.transferId, offset: this.offset, data: toBase64(data) },
      DAEMON_TIMEOUT_MS,
      this.signal,
    );
    this.offset += data.length;
  }

  /** Sends what is batched and closes the transfer; `head` replaces the file's first bytes (a PNG header). */
  async finish(head?: Uint8Array): Promise<Finished> {
    await this.flush();
    return call(
      "transfer.finish",
      { session_id: this.sessionId, transfer_id: this.transferId, ...(head && { head: toBase64(head) }) },
      DAEMON_TIMEOUT_MS,
      this.signal,
    );
  }

  /** Drops what was staged (never throws; also after the call's signal ended). */
  release(): void {
    void call("transfer.release", { session_id: this.sessionId, transfer_id: this.transferId }, DAEMON_TIMEOUT_MS).catch(() => undefined);
  }
}

/** push(), then tell the caller how many bytes of `total` are in. */
export async function pushCounted(out: TransferOut, bytes: Uint8Array, total: number | undefined, progress?: Progress): Promise<void> {
  await out.push(bytes);
  progress?.({ done: out.size, ...(total !== undefined && { total }), unit: "bytes", label: "downloading" });
}

/** The daemon's transfer caps (daemon/transfers.ts): a download they cut fails with their own error, everywhere. */
const CAP_REASONS = new Set(["file_too_large", "session_quota", "too_many_files"]);

export function isCapRefusal(err: unknown): err is BskError {
  return err instanceof BskError && CAP_REASONS.has(String(err.data?.reason));
}
