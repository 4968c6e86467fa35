/** What the keep-alive content script and the worker say to each other (link/keepalive.ts, entrypoints/keepalive.ts). */
export const KEEPALIVE = {
  /** Content script → worker; answered `{live}`: whether the tab belongs to a live session. */
  ping: "keepalive.ping",
  /** Worker → a tab that just joined a session: start pinging. */
  start: "keepalive.start",
} as const;

/** storage.local: whether any session is live, so the person's own tabs do not wake the worker otherwise. */
export const LIVE_ANY_KEY = "keepalive_live";
