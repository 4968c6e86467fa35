/**
 * What a server-mode daemon does with an HTTP request before anything else: only /extension (a WebSocket upgrade) and
 * /extension/authorize exist, with no query string, from an allowed extension's Origin, within the peer's rate limit.
 * Behind a reverse proxy the peer is read from X-Forwarded-For, but only on a request that came from a trusted proxy's
 * address (`--trusted-proxy`; `peerOf`); any other peer's headers are never believed.
 */
import { BskError, toErrorBody } from "../../protocol/errors.ts";
import { AUTHORIZE_PATH, REMOTE_LINK_PATH } from "../../protocol/remote.ts";
import type { AllowList } from "../../shared/allow-list.ts";
import { isIP } from "node:net";
import { canonicalAddress, type PeerLimiter, type Verdict } from "./limits.ts";
import type { ServerMode } from "./server-options.ts";

export type RemoteRoute =
  | { kind: "response"; response: Response; refused?: string }
  | { kind: "authorize"; extensionId: string; peer: string }
  | { kind: "link"; extensionId: string };

const ORIGIN = /^chrome-extension:\/\/([a-p]{32})$/;

function refuse(status: number, reason: string, text: string, headers: Record<string, string> = {}): RemoteRoute {
  return { kind: "response", refused: reason, response: new Response(`${text}\n`, { status, headers }) };
}

/**
 * The address a request counts against. The first hop unless it is a trusted proxy (`--trusted-proxy`); then
 * X-Forwarded-For is read from the right, past the trusted proxies in it, and the first entry that is not one is the
 * peer: only a trusted proxy appends, so what is left of that entry the client may have written itself. An entry that
 * is not an IP address names nobody: the proxy's own address counts instead.
 */
export function peerOf(req: Request, address: string | undefined, mode: Pick<ServerMode, "trustedProxies">): string {
  const direct = address ?? "unknown";
  const trusted = (a: string) => mode.trustedProxies.includes(canonicalAddress(a));
  if (!trusted(direct)) return direct;
  const hops = (req.headers.get("x-forwarded-for") ?? "").split(",").map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(hop) && trusted(hop)) continue;
    return isIP(hop) ? hop : direct;
  }
  return direct;
}

export function remoteRequest(
  req: Request,
  address: string | undefined,
  remote: { mode: ServerMode; limiter: PeerLimiter },
  allowList: AllowList,
): RemoteRoute {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return refuse(400, "bad_url", "bad request URL");
  }
  const authorize = url.pathname === AUTHORIZE_PATH;
  if (!authorize && url.pathname !== REMOTE_LINK_PATH) return { kind: "response", response: new Response("not found\n", { status: 404 }) };
  if (url.search !== "" || req.url.includes("?"))
    return refuse(403, "query_string", "query strings are refused (a code or credential never travels in a URL)");
  const peer = peerOf(req, address, remote.mode);
  const verdict = remote.limiter.take(authorize ? "authorize" : "link", peer);
  if (!verdict.ok) return { kind: "response", refused: verdict.reason, response: limited(verdict) };
  const m = ORIGIN.exec(req.headers.get("origin") ?? "");
  if (!m) return refuse(403, "bad_origin", "origin must be chrome-extension://<allowed id>");
  if (!allowList.has(m[1]!))
    return refuse(403, "extension_not_allowed", `extension ${m[1]} is not allowed (bsk daemon allow-extension <id>)`);
  // The extension's fetch carries an Authorization header, so the browser asks first (CORS preflight): only the
  // allowed extension's origin is answered, and only for POST with these headers.
  if (authorize && req.method === "OPTIONS")
    return { kind: "response", response: new Response(null, { status: 204, headers: corsHeaders(m[0]!) }) };
  return authorize ? { kind: "authorize", extensionId: m[1]!, peer } : { kind: "link", extensionId: m[1]! };
}

/** 429 or 503 with Retry-After, and the error as authorize answers it (JSON with a code and a hint). */
function limited(verdict: Extract<Verdict, { ok: false }>): Response {
  const data = { reason: verdict.reason === "busy" ? "server_busy" : "rate_limited", retry_after_ms: verdict.retryAfterS * 1000 };
  const error =
    verdict.reason === "busy"
      ? new BskError("timeout", "the server is busy; try again shortly", { data })
      : new BskError("permission_denied", "too many requests from this address; slow down", { data });
  return new Response(JSON.stringify({ ok: false, error: toErrorBody(error) }), {
    status: verdict.status,
    headers: { "content-type": "application/json", "cache-control": "no-store", "retry-after": String(verdict.retryAfterS) },
  });
}

/** What an allowed extension's cross-origin authorize request needs from the answer. */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": "POST",
    "access-control-allow-headers": "authorization, content-type",
    "access-control-max-age": "600",
    vary: "Origin",
  };
}
