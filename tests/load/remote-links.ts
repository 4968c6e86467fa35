/**
 * Server mode under load (issue 13): N scripted extension links (tests/integration/peer.ts), each paired through the
 * real authorize flow and linked as its own device, to one server-mode daemon on loopback. Then one session per
 * device and calls from agents on the server, all at once: every call must reach the device that owns its session
 * (the answer names the device), and no link may drop. Written to bench/results.json as `remote_links`:
 * daemon memory per idle link, calls per second, p50/p95 call latency.
 *
 *   bun tests/load/remote-links.ts [N]     (default 500; npm run bench runs it as a process of its own)
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { homePaths } from "../../shared/home.ts";
import { parsePairingLink } from "../../protocol/remote.ts";
import { freePort, tempHome, TEST_ENV } from "../integration/harness.ts";
import { IpcClient } from "../integration/ipc-client.ts";
import { Peer } from "../integration/peer.ts";
import { pair, type Device } from "../integration/remote-client.ts";
import { serverModeArgs } from "../tls/server-args.ts";

const ROOT = join(import.meta.dir, "../..");

function rssBytes(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;
}

export interface RemoteLinksResult {
  links: number;
  authorized: number;
  dropped: number;
  misrouted: number;
  rss_before_mb: number;
  rss_after_mb: number;
  kb_per_idle_link: number;
  calls: number;
  calls_per_second: number;
  call_p50_ms: number;
  call_p95_ms: number;
}

export async function remoteLinks(n = 500): Promise<RemoteLinksResult> {
  const home = tempHome();
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}/extension`;
  // Loopback without TLS (the proxy set-up); the proofs bind the public URL's authority all the same.
  const publicUrl = `wss://127.0.0.1:${port}/extension`;
  const authority = `127.0.0.1:${port}`;
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({ remote_limits: { linksPerSecond: 1e5, linkBurst: 1e5, authorizePerSecond: 1e5, authorizeBurst: 1e5 } }),
  );
  const env = { ...process.env, ...TEST_ENV, BSK_HOME: home, BSK_PAIRING_INTERVAL_MS: "0", BSK_BROWSER_SILENCE_MS: "600000" };
  const daemon = Bun.spawn([process.execPath, join(ROOT, "cli/main.ts"), ...serverModeArgs(port, publicUrl)], {
    env,
    stdout: "pipe",
    stderr: "ignore",
  });
  const peers: Peer[] = [];
  try {
    const reader = (daemon.stdout as ReadableStream<Uint8Array>).getReader();
    for (let text = ""; !text.includes('"daemon started"'); ) {
      const r = await reader.read();
      if (r.done) throw new Error("the server did not start");
      text += new TextDecoder().decode(r.value);
    }
    void (async () => {
      while (!(await reader.read()).done);
    })();
    const client = await IpcClient.connect(homePaths(home, env));
    const rssBefore = rssBytes(daemon.pid);

    // Pair each device through the real flow (one code at a time, as a person would).
    const devices: Device[] = [];
    for (let i = 0; i < n; i++) {
      const code = await client.request("system.pairing_code", {});
      const parsed = parsePairingLink(code.result.link);
      if (!parsed.ok) throw new Error(parsed.why);
      devices.push(await pair({ url, authority }, parsed.link, { label: `load-${i}`, browser: { name: "Chromium", version: "156.0" } }));
    }
    // Link them all, answering tab.list with the device's own id (so a misrouted call shows).
    for (const d of devices) {
      const peer = await Peer.connect({ port, remote: { url, authority, device: d } });
      const hs = await peer.handshake();
      if (hs.error) throw new Error(`link refused: ${hs.error.code}`);
      peers.push(peer);
      void (async () => {
        for (;;) {
          const req = await peer.requests.next(() => true, "a request", 3_600_000).catch(() => null);
          if (!req) return;
          req.reply({
            current_tab_id: 1,
            tabs: [{ tab_id: 1, window_id: 1, title: d.id, url: "about:blank", active: true, owner: "session" }],
          });
        }
      })();
    }
    const dropped = () => peers.filter((p) => p.ws.readyState !== WebSocket.OPEN).length;
    Bun.gc(true);
    const rssAfter = rssBytes(daemon.pid);

    // One session per device, then every session's tab list at once, three rounds.
    const sessions: { id: string; device: string }[] = [];
    for (const d of devices) {
      const r = await client.request("session.start", { browser: d.id, focus: false });
      if (r.error) throw new Error(`session.start: ${r.error.code}: ${r.error.message}`);
      sessions.push({ id: r.result.session_id, device: d.id });
    }
    const latencies: number[] = [];
    let misrouted = 0;
    const t0 = performance.now();
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        sessions.map(async (s) => {
          const t = performance.now();
          const r = await client.request("tab.list", { session_id: s.id });
          latencies.push(performance.now() - t);
          if (r.error || r.result.tabs?.[0]?.title !== s.device) misrouted++;
        }),
      );
    }
    const seconds = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const q = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]! * 10) / 10;
    client.close();
    return {
      links: n,
      authorized: peers.length,
      dropped: dropped(),
      misrouted,
      rss_before_mb: Math.round(rssBefore / 1e5) / 10,
      rss_after_mb: Math.round(rssAfter / 1e5) / 10,
      kb_per_idle_link: Math.round((rssAfter - rssBefore) / n / 102.4) / 10,
      calls: latencies.length,
      calls_per_second: Math.round(latencies.length / seconds),
      call_p50_ms: q(0.5),
      call_p95_ms: q(0.95),
    };
  } finally {
    for (const p of peers) p.close();
    daemon.kill("SIGTERM");
    await daemon.exited;
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const n = Number(process.argv[2] ?? 500);
  const result = await remoteLinks(n);
  console.log(JSON.stringify(result, null, 2));
  const file = join(ROOT, "bench/results.json");
  const all = JSON.parse(readFileSync(file, "utf8"));
  writeFileSync(file, `${JSON.stringify({ ...all, remote_links: { date: new Date().toISOString(), ...result } }, null, 2)}\n`);
  // Done: 500 client sockets closing against a daemon that is gone may keep the loop alive a while; nothing is left to do.
  process.exit(result.dropped || result.misrouted || result.authorized !== n ? 1 : 0);
}
