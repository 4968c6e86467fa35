/**
 * Downloading a release asset into memory while hashing it, with a progress line on a terminal (stderr only,
 * never with --json). Cut at the size the signed manifest gives (else at MAX_BYTES) while it streams; a download
 * that stalls for 30 s is abandoned.
 */
import { fetchCapped } from "../../shared/capped-fetch.ts";
import { BskError } from "../../protocol/errors.ts";
import { ProgressLine } from "../call-progress.ts";

const STALL_MS = 30_000;
/** Archives are ~40–70 MB; a manifest without a size gets this much and no more. */
export const ARCHIVE_MAX_BYTES = 256 * 1024 * 1024;

export interface Downloaded {
  bytes: Uint8Array;
  sha256: string;
}

export async function download(url: string, opts: { expectedSize?: number; progress?: boolean } = {}): Promise<Downloaded> {
  const hasher = new Bun.CryptoHasher("sha256");
  let total = opts.expectedSize ?? 0;
  const line = new ProgressLine(!opts.progress);
  const show = (received: number, done = false) => {
    if (done) return line.clear();
    line.draw({ done: received, ...(total > 0 && { total }), unit: "bytes", label: "downloading" });
  };
  const sized = opts.expectedSize !== undefined;
  const bytes = await fetchCapped(url, {
    what: "release archive",
    maxBytes: sized ? opts.expectedSize! : ARCHIVE_MAX_BYTES,
    stallMs: STALL_MS,
    failReason: "download_failed",
    onResponse: (res) => {
      if (!total) total = Number(res.headers.get("content-length")) || 0;
    },
    onChunk: (chunk, received) => {
      hasher.update(chunk);
      show(received);
    },
    tooLarge: sized
      ? (u, max) =>
          new BskError(
            "permission_denied",
            `the release archive at ${u} is larger than the release manifest says (${max} bytes); bsk stopped reading it`,
            {
              data: { reason: "checksum_mismatch", what: "release archive", url: u, max_bytes: max },
            },
          )
      : undefined,
  });
  show(bytes.length, true);
  return { bytes, sha256: hasher.digest("hex") };
}
