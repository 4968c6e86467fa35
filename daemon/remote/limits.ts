/**
 * Per-peer rate limits of a server-mode daemon: new links and authorize requests, each a token bucket per peer
 * address. The limits come from config.json's `remote_limits` as one immutable snapshot, swapped whole on reload
 * (SIGHUP): a check reads whichever snapshot is current, with no lock. A daemon whose event loop lags past BUSY_MS
 * (the limiter could not answer in time) answers 503 to new links and authorize requests instead of holding them;
 * live, authenticated links are never touched by any of this.
 */
import { readJsonFile } from "../../shared/fs-util.ts";

export interface RemoteLimits {
  /** New links per second per peer, and the burst allowed. */
  linksPerSecond: number;
  linkBurst: number;
  /** Authorize requests (pairing, renewal) per second per peer, and the burst allowed. */
  authorizePerSecond: number;
  authorizeBurst: number;
}

export const LIMIT_DEFAULTS: RemoteLimits = { linksPerSecond: 2, linkBurst: 20, authorizePerSecond: 1, authorizeBurst: 10 };

/** Past this lag the daemon is too busy to judge a new request: 503. */
export const BUSY_MS = 500;
/** Peers remembered at most; the oldest are forgotten first (a full bucket is the same as none). */
const MAX_PEERS = 10_000;

export function readLimits(configFile: string): RemoteLimits {
  const raw =
    (readJsonFile(configFile) as { remote_limits?: Partial<Record<keyof RemoteLimits, unknown>> } | undefined)?.remote_limits ?? {};
  const out = { ...LIMIT_DEFAULTS };
  for (const k of Object.keys(LIMIT_DEFAULTS) as (keyof RemoteLimits)[]) {
    const v = raw[k];
    if (typeof v === "number" && Number.isFinite(v) && v > 0 && v <= 1e6) out[k] = v;
  }
  return Object.freeze(out);
}

/**
 * One spelling per address, for comparing them: IPv4 (also IPv4-mapped IPv6) as dotted quads, IPv6 as its eight groups
 * without leading zeros. Anything else (not an address) lower-cased as it is.
 */
export function canonicalAddress(address: string): string {
  const a = address.trim().toLowerCase();
  if (a.startsWith("::ffff:") && a.includes(".")) return a.slice(7);
  if (!a.includes(":")) return a;
  const [head = "", tail = ""] = a.split("::", 2);
  const left = head ? head.split(":") : [];
  const right = a.includes("::") && tail ? tail.split(":") : [];
  const groups = a.includes("::") ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right] : left;
  return groups.map((g) => g.replace(/^0+(?=.)/, "")).join(":");
}

/**
 * What a peer is counted as: an IPv4 address as itself, an IPv6 address by its /64 (one host is usually given a whole
 * /64, and could rotate through it).
 */
export function peerKey(address: string): string {
  const a = canonicalAddress(address);
  return a.includes(":") ? `${a.split(":").slice(0, 4).join(":")}::/64` : a;
}

interface Bucket {
  tokens: number;
  at: number;
}

export type Verdict = { ok: true } | { ok: false; status: 429 | 503; retryAfterS: number; reason: "rate_limited" | "busy" };

export class PeerLimiter {
  private snapshot: RemoteLimits;
  private readonly buckets = { link: new Map<string, Bucket>(), authorize: new Map<string, Bucket>() };
  private lagMs = 0;
  private readonly timer: Timer;

  constructor(
    private readonly configFile: string,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.snapshot = readLimits(configFile);
    // The event loop's lag, sampled: a tick that comes late by more than BUSY_MS means requests wait that long.
    let expected = this.now() + 100;
    this.timer = setInterval(() => {
      const t = this.now();
      this.lagMs = Math.max(0, t - expected);
      expected = t + 100;
    }, 100);
    this.timer.unref?.();
  }

  reload(): RemoteLimits {
    this.snapshot = readLimits(this.configFile);
    return this.snapshot;
  }

  get limits(): RemoteLimits {
    return this.snapshot;
  }

  take(kind: "link" | "authorize", peer: string): Verdict {
    if (this.lagMs > BUSY_MS) return { ok: false, status: 503, retryAfterS: 1, reason: "busy" };
    const l = this.snapshot;
    const [rate, burst] = kind === "link" ? [l.linksPerSecond, l.linkBurst] : [l.authorizePerSecond, l.authorizeBurst];
    const map = this.buckets[kind];
    const now = this.now();
    peer = peerKey(peer);
    let b = map.get(peer);
    if (b) map.delete(peer);
    else b = { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    map.set(peer, b);
    if (map.size > MAX_PEERS) map.delete(map.keys().next().value!);
    if (b.tokens < 1) return { ok: false, status: 429, retryAfterS: Math.ceil((1 - b.tokens) / rate), reason: "rate_limited" };
    b.tokens -= 1;
    return { ok: true };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
