/**
 * Downloading a release asset into memory while hashing it, with a progress line on a terminal (stderr only,
 * never with --json). A download that stalls for 30 s is abandoned.
 */
import { BskError } from "../../protocol/errors.ts";

const STALL_MS = 30_000;
/** Archives are ~40–70 MB; refuse anything absurd before it fills memory. */
const MAX_BYTES = 512 * 1024 * 1024;

export interface Downloaded {
  bytes: Uint8Array;
  sha256: string;
}

function failed(url: string, why: string): BskError {
  return new BskError("unsupported", `could not download ${url}: ${why}`, { data: { reason: "download_failed", url } });
}

export async function download(url: string, opts: { expectedSize?: number; progress?: boolean } = {}): Promise<Downloaded> {
  const abort = new AbortController();
  let stall: Timer | undefined;
  const armStall = () => {
    clearTimeout(stall);
    stall = setTimeout(() => abort.abort(new Error(`no data for ${STALL_MS / 1000} s`)), STALL_MS);
  };
  armStall();
  try {
    let res: Response;
    try {
      res = await fetch(url, { signal: abort.signal, redirect: "follow" });
    } catch (err) {
      throw failed(url, (abort.signal.reason as Error | undefined)?.message ?? (err as Error).message);
    }
    if (!res.ok || !res.body) throw failed(url, `HTTP ${res.status}`);
    const total = opts.expectedSize ?? (Number(res.headers.get("content-length")) || 0);
    const hasher = new Bun.CryptoHasher("sha256");
    const chunks: Uint8Array[] = [];
    let received = 0;
    let shown = -1;
    const show = (done = false) => {
      if (!opts.progress) return;
      const pct = total ? Math.min(100, Math.floor((received / total) * 100)) : -1;
      if (!done && pct === shown) return;
      shown = pct;
      const mb = (received / 1e6).toFixed(1);
      process.stderr.write(`\rdownloading ${pct >= 0 ? `${pct}% ` : ""}(${mb} MB)${done ? "\n" : ""}`);
    };
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        armStall();
        received += chunk.length;
        if (opts.expectedSize !== undefined && received > opts.expectedSize) {
          abort.abort();
          throw new BskError("permission_denied", `${url} is larger than the release manifest says (${opts.expectedSize} bytes)`, {
            data: { reason: "checksum_mismatch", url },
          });
        }
        if (received > MAX_BYTES) {
          abort.abort();
          throw failed(url, `larger than ${MAX_BYTES} bytes`);
        }
        hasher.update(chunk);
        chunks.push(chunk);
        show();
      }
    } catch (err) {
      if (err instanceof BskError) throw err;
      throw failed(url, (abort.signal.reason as Error | undefined)?.message ?? (err as Error).message);
    }
    show(true);
    const bytes = new Uint8Array(received);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    return { bytes, sha256: hasher.digest("hex") };
  } finally {
    clearTimeout(stall);
  }
}
