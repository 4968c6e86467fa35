/**
 * A port for a listener whose number must be known before it starts: a daemon restarted on the same port, a public
 * URL, an nginx configuration. Chosen below the kernel's ephemeral range: a port the kernel hands out for port 0
 * and that we then release can be taken by any outgoing connection (the browser's own) before our listener binds
 * it, while no outgoing connection is ever given a port below the range. A listener that can report its port
 * listens on port 0 instead and is asked which one it got.
 */
import { readFileSync } from "node:fs";

/** Below this lie ports other services are known to use. */
const FLOOR = 20_000;

function ephemeralStart(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {}
  return 32_768; // Linux's default, and what other systems start at or above
}

export async function freePort(): Promise<number> {
  const ceiling = ephemeralStart();
  if (ceiling - FLOOR < 1_000) throw new Error(`the ephemeral port range starts at ${ceiling}: no room below it for test listeners`);
  // Random, so a port some leftover listener holds costs one more try, never the same one again.
  for (let tries = 0; tries < 200; tries++) {
    const port = FLOOR + Math.floor(Math.random() * (ceiling - FLOOR));
    try {
      Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
      return port;
    } catch {
      // held by someone: try another
    }
  }
  throw new Error(`no free port between ${FLOOR} and ${ceiling}`);
}
