/**
 * Chromium's network errors that end a load before any request reached a server: the name did not resolve, the
 * connection was refused or never made, the TLS handshake failed, the browser blocked it. A navigation that ends
 * with one of these did nothing the site could see, so its effect is `none`; any other error (the connection
 * reset, an empty response, a timeout) may come after the server got the request: `unknown`.
 */
const NEVER_SENT = new Set([
  "ERR_NAME_NOT_RESOLVED",
  "ERR_NAME_RESOLUTION_FAILED",
  "ERR_ADDRESS_INVALID",
  "ERR_ADDRESS_UNREACHABLE",
  "ERR_CONNECTION_REFUSED",
  "ERR_CONNECTION_TIMED_OUT",
  "ERR_INTERNET_DISCONNECTED",
  "ERR_NETWORK_ACCESS_DENIED",
  "ERR_PROXY_CONNECTION_FAILED",
  "ERR_TUNNEL_CONNECTION_FAILED",
  "ERR_INVALID_URL",
  "ERR_UNKNOWN_URL_SCHEME",
  "ERR_DISALLOWED_URL_SCHEME",
  "ERR_UNSAFE_PORT",
  "ERR_BLOCKED_BY_CLIENT",
  "ERR_BLOCKED_BY_ADMINISTRATOR",
  "ERR_SSL_PROTOCOL_ERROR",
  "ERR_SSL_VERSION_OR_CIPHER_MISMATCH",
  "ERR_BAD_SSL_CLIENT_AUTH_CERT",
]);

/** `net::ERR_NAME_NOT_RESOLVED` (or the bare name) → whether the request never left the browser. */
export function requestNeverSent(errorText: string): boolean {
  const name = errorText.replace(/^net::/, "").trim();
  return NEVER_SENT.has(name) || name.startsWith("ERR_CERT_");
}
