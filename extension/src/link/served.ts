/** One link's daemon requests being worked on (serve.ts), and what releases a held one's input (pure). */

/** A daemon request being worked on: its abort, and for a held one (meta.hold) what releases its input. */
export interface Served {
  ac: AbortController;
  durable?: () => void;
}

/** `op.durable` from the link's daemon: the held request may send its input now. Unknown ids are ignored. */
export function opDurable(inflight: Map<string | number, Served>, payload: unknown): void {
  const id = (payload as { request_id?: unknown } | null)?.request_id;
  if (typeof id === "string" || typeof id === "number") inflight.get(id)?.durable?.();
}
