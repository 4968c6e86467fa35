/**
 * Downloading a release asset into memory while hashing it, with a progress line on a terminal (stderr only,
 * never with --json). Cut at the size the signed manifest gives (else at MAX_BYTES) while it streams; a download
 * that stalls for 30 s is abandoned.
 */
import { fetchCapped } from "../../shared/capped-fetch.ts";
import { BskError } from "../../protocol/errors.ts";

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
  let shown = -1;
  const show = (received: number, done = false) => {
    if (!opts.progress) return;
    const pct = total ? Math.min(100, Math.floor((received / total) * 100)) : -1;
    if (!done && pct === shown) return;
    shown = pct;
    const mb = (received / 1e6).toFixed(1);
    process.stderr.write(`\rdownloading ${pct >= 0 ? `${pct}% ` : ""}(${mb} MB)${done ? "\n" : ""}`);
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
