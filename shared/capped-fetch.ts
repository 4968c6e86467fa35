/**
 * Reading an HTTP body with a cap that holds while it streams: a Content-Length above the cap is refused before
 * the body is read, and a body that grows past the cap (chunked, endless, lying about its length) is cut there,
 * the connection cancelled. Nothing beyond `maxBytes` plus one network chunk is ever held. Used for every body
 * bsk reads from the network: the release manifest, its signature and the archive (`bsk update`, the daemon's
 * periodic check).
 */
import { BskError } from "../protocol/errors.ts";

export interface CappedFetchOptions {
  /** What the body is, for errors: "release manifest", "release signature", "release archive". */
  what: string;
  maxBytes: number;
  /** The whole request, headers and body. */
  timeoutMs?: number;
  /** Abandoned when no data came for this long. */
  stallMs?: number;
  /** `data.reason` of a failure to fetch (network, HTTP status, timeout). */
  failReason: string;
  /** Each chunk as it comes (hashing, progress); the body is still returned whole. */
  onChunk?: (chunk: Uint8Array, received: number) => void;
  /** The error for a body past the cap; by default `unsupported` / `response_too_large`. */
  tooLarge?: (url: string, maxBytes: number) => BskError;
  /** Called with the response before its body is read (e.g. its Content-Length for progress). */
  onResponse?: (res: Response) => void;
}

export function formatBytes(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

export function responseTooLarge(what: string, url: string, maxBytes: number): BskError {
  return new BskError("unsupported", `the ${what} at ${url} is larger than ${formatBytes(maxBytes)}; bsk stopped reading it`, {
    data: { reason: "response_too_large", what, url, max_bytes: maxBytes },
  });
}

/** GET `url` and return its body, never holding more than `opts.maxBytes` of it. */
export async function fetchCapped(url: string, opts: CappedFetchOptions): Promise<Uint8Array> {
  const abort = new AbortController();
  const tooLarge = () => (opts.tooLarge ?? ((u, max) => responseTooLarge(opts.what, u, max)))(url, opts.maxBytes);
  const failed = (why: string, status?: number) =>
    new BskError("unsupported", `could not fetch the ${opts.what} at ${url}: ${why}`, {
      data: { reason: opts.failReason, what: opts.what, url, ...(status !== undefined && { status }) },
    });
  const why = (err: unknown) => (abort.signal.reason as Error | undefined)?.message ?? (err instanceof Error ? err.message : String(err));
  const total = opts.timeoutMs
    ? setTimeout(() => abort.abort(new Error(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs)
    : undefined;
  let stall: Timer | undefined;
  const armStall = () => {
    if (!opts.stallMs) return;
    clearTimeout(stall);
    stall = setTimeout(() => abort.abort(new Error(`no data for ${opts.stallMs! / 1000} s`)), opts.stallMs);
  };
  armStall();
  try {
    let res: Response;
    try {
      res = await fetch(url, { signal: abort.signal, redirect: "follow" });
    } catch (err) {
      throw failed(why(err));
    }
    if (!res.ok || !res.body) {
      void res.body?.cancel().catch(() => {});
      throw failed(`HTTP ${res.status}`, res.status);
    }
    const declared = Number(res.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > opts.maxBytes) {
      abort.abort();
      throw tooLarge();
    }
    opts.onResponse?.(res);
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let received = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        armStall();
        received += value.length;
        if (received > opts.maxBytes) {
          chunks.length = 0;
          abort.abort();
          void reader.cancel().catch(() => {});
          throw tooLarge();
        }
        chunks.push(value);
        opts.onChunk?.(value, received);
      }
    } catch (err) {
      if (err instanceof BskError) throw err;
      throw failed(why(err));
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
  } finally {
    clearTimeout(total);
    clearTimeout(stall);
  }
}
