/**
 * The steps every file transfer is made of (transfers.ts, tile-files.ts): one call to the daemon with the transfer's
 * own timeout, a progress line, and reading a staged transfer back, checked by size and SHA-256.
 */
import { BskError } from "../protocol/errors.ts";
import { ProgressLine } from "./call-progress.ts";
import { call, nextRequestId, type Connection } from "./daemon-client.ts";

const STEP_TIMEOUT_MS = 60_000;

export async function daemonCall(conn: Connection, method: string, params: Record<string, unknown>): Promise<any> {
  const reply = await call(
    conn,
    { id: nextRequestId(), method, params, meta: { timeout_ms: STEP_TIMEOUT_MS } },
    { giveUpMs: STEP_TIMEOUT_MS + 5000 },
  );
  if (!reply.ok) throw reply.error;
  return reply.result;
}

/** Progress on stderr, only when it is a terminal: the same line as a call's progress (call-progress.ts). */
export function progress(label: string): { update(done: number, total: number): void; end(): void } {
  const line = new ProgressLine(false);
  return { update: (done, total) => line.draw({ done, total, unit: "bytes", label }), end: () => line.clear() };
}

/**
 * Reads a staged transfer from its start, handing each piece of bytes to `take` in order, and checks what was read
 * against the size and SHA-256 the reply gave.
 */
export async function readTransfer(
  conn: Connection,
  sessionId: string,
  id: string,
  want: { size: number; sha256: string },
  label: string,
  take: (bytes: Uint8Array) => void,
): Promise<void> {
  const h = new Bun.CryptoHasher("sha256");
  const bar = progress(label);
  let written = 0;
  try {
    for (;;) {
      const r = await daemonCall(conn, "transfer.read", { session_id: sessionId, transfer_id: id, offset: written });
      const bytes = Uint8Array.fromBase64(r.data as string);
      if (bytes.length) {
        h.update(bytes);
        take(bytes);
        written += bytes.length;
        bar.update(written, Number(r.size));
      }
      if (r.eof) break;
      if (!bytes.length) throw new BskError("protocol_error", `transfer ${id} returned no bytes before its end`);
    }
  } finally {
    bar.end();
  }
  const sha = h.digest("hex");
  if (written !== want.size || sha !== want.sha256) {
    throw new BskError("protocol_error", `the bytes read back (${written} B, sha256 ${sha.slice(0, 12)}…) are not what was staged`, {
      data: { reason: "checksum_mismatch", size: written, sha256: sha, expected_size: want.size, expected_sha256: want.sha256 },
    });
  }
}
