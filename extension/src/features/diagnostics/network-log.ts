/**
 * Requests of one tab from Network.* events. A request enters the ring (and gets its sequence number) when it
 * ends: loading finished, failed, or answered with a redirect. Requests still in flight are held aside (bounded)
 * and show up once they end; data: URLs are left out. Pure (no chrome.*).
 */
import { Ring } from "./ring.ts";

export interface RequestEntry {
  seq: number;
  method: string;
  url: string;
  /** CDP's resource type, lower case: document, script, fetch, xhr, image, … */
  type: string;
  status: number | null;
  error?: string;
  duration_ms: number | null;
  /** ms since the epoch, when the request was sent */
  ts: number;
}

interface InFlight {
  method: string;
  url: string;
  type: string;
  status: number | null;
  /** CDP monotonic seconds */
  started: number;
  ts: number;
}

export const STORED_URL_CHARS = 16_384;
/** Characters of URLs and errors kept per tab, as the console's (console-log.ts CONSOLE_BUDGET_CHARS). */
export const NETWORK_BUDGET_CHARS = 1_048_576;
/** Characters of URLs held for requests still in flight per tab; past it the oldest is forgotten. */
const IN_FLIGHT_BUDGET_CHARS = 1_048_576;

export function isFailed(e: RequestEntry): boolean {
  return e.error !== undefined || (e.status ?? 0) >= 400;
}

export class NetworkLog {
  readonly ring: Ring<RequestEntry>;
  private readonly inFlight = new Map<string, InFlight>();
  private inFlightChars = 0;

  /** `onAdd` hears each request as it ends (enters the ring); requests sent before `notBefore` (ms since the epoch) are not kept. */
  constructor(
    capacity = 1000,
    private readonly maxInFlight = 1000,
    private readonly onAdd?: (e: RequestEntry) => void,
    private readonly notBefore = 0,
  ) {
    this.ring = new Ring(capacity, { chars: NETWORK_BUDGET_CHARS, weigh: (e) => e.url.length + (e.error?.length ?? 0) });
  }

  /** A request in flight no longer followed. */
  private forget(id: string): void {
    const r = this.inFlight.get(id);
    if (!r) return;
    this.inFlight.delete(id);
    this.inFlightChars -= r.url.length;
  }

  private end(id: string, at: number | undefined, outcome: { status?: number | null; error?: string }): void {
    const r = this.inFlight.get(id);
    if (!r) return;
    this.forget(id);
    const entry = this.ring.push((seq) => {
      const e: RequestEntry = {
        seq,
        method: r.method,
        url: r.url,
        type: r.type,
        status: outcome.status !== undefined ? outcome.status : r.status,
        duration_ms: at !== undefined ? Math.round((at - r.started) * 10_000) / 10 : null,
        ts: r.ts,
      };
      if (outcome.error !== undefined) e.error = outcome.error;
      return e;
    });
    this.onAdd?.(entry);
  }

  /**
   * Feeds one CDP event of the tab; events of other domains are ignored. `session` names the child CDP session
   * (an out-of-process iframe) it came from: request ids are only unique within one.
   */
  onEvent(method: string, params: Record<string, any>, session = ""): void {
    const p = session ? { ...params, requestId: `${session}:${params.requestId}` } : params;
    switch (method) {
      case "Network.requestWillBeSent": {
        // Inline data (icons of form controls, small images) is no request anyone waits for: not listed.
        if (String(p.request?.url ?? "").startsWith("data:")) return;
        const ts = typeof p.wallTime === "number" ? Math.round(p.wallTime * 1000) : Date.now();
        if (ts < this.notBefore) return;
        // Same request id again: the previous hop was answered with a redirect.
        if (p.redirectResponse) this.end(p.requestId, p.timestamp, { status: p.redirectResponse.status ?? null });
        this.forget(p.requestId);
        const url = String(p.request?.url ?? "").slice(0, STORED_URL_CHARS);
        while (this.inFlight.size && (this.inFlight.size >= this.maxInFlight || this.inFlightChars + url.length > IN_FLIGHT_BUDGET_CHARS))
          this.forget(this.inFlight.keys().next().value!);
        this.inFlight.set(p.requestId, {
          method: String(p.request?.method ?? "GET"),
          url,
          type: String(p.type ?? "other").toLowerCase(),
          status: null,
          started: p.timestamp,
          ts,
        });
        this.inFlightChars += url.length;
        return;
      }
      case "Network.responseReceived": {
        const r = this.inFlight.get(p.requestId);
        if (!r) return;
        r.status = typeof p.response?.status === "number" ? p.response.status : null;
        if (p.type) r.type = String(p.type).toLowerCase();
        return;
      }
      case "Network.loadingFinished":
        this.end(p.requestId, p.timestamp, {});
        return;
      case "Network.loadingFailed": {
        let error = String(p.errorText || "failed");
        if (p.blockedReason) error += ` (blocked: ${p.blockedReason})`;
        else if (p.corsErrorStatus?.corsError) error += ` (cors: ${p.corsErrorStatus.corsError})`;
        else if (p.canceled) error += " (canceled)";
        this.end(p.requestId, p.timestamp, { error });
        return;
      }
    }
  }
}
