/** What the keep-alive content script and the worker say to each other (link/keepalive.ts, entrypoints/keepalive.ts). */
export const KEEPALIVE = {
  /** Content script → worker; answered `{live}`: whether the tab belongs to a live session. */
  ping: "keepalive.ping",
  /** Worker → a tab that just joined a session (every frame): start pinging (top frame), report the person's input (hands). */
  start: "keepalive.start",
  /** Worker → a tab that left its session (every frame): stop both. */
  stop: "keepalive.stop",
} as const;

/**
 * A global in bsk's content-script world, set by the keep-alive script: it is registered only while some session is
 * live, so where it ran a session was live when the page loaded. The overlay and hands scripts read it to decide
 * whether to wake the worker, instead of a storage.local flag: storage.local is for trusted contexts only
 * (session/storage-lock.ts). The page cannot reach this world.
 */
export const LIVE_GLOBAL = "__bskLive";

export function liveHere(): boolean {
  return (globalThis as Record<string, unknown>)[LIVE_GLOBAL] === true;
}
