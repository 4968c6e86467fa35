/**
 * Reads a CDP stream (IO domain: a response body taken with Fetch.takeResponseBodyAsStream, or a page's Blob as
 * `blob:<uuid>`) to its end, handing each piece on as bytes. The stream is closed however the read ends.
 */
import { fromBase64 } from "../../shared/base64.ts";
import { sendTo } from "../../cdp/debugger.ts";
import type { CdpTarget } from "../../cdp/refs/target.ts";

const READ_BYTES = 1024 * 1024;

const encoder = new TextEncoder();

export async function readStream(
  target: CdpTarget,
  handle: string,
  onBytes: (b: Uint8Array) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  try {
    for (;;) {
      const r = await sendTo<{ data: string; base64Encoded?: boolean; eof: boolean }>(
        target,
        "IO.read",
        { handle, size: READ_BYTES },
        signal,
      );
      if (r.data) await onBytes(r.base64Encoded ? fromBase64(r.data) : encoder.encode(r.data));
      if (r.eof) return;
    }
  } finally {
    void sendTo(target, "IO.close", { handle }).catch(() => undefined);
  }
}
