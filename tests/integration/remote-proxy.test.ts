/**
 * Server mode behind a real reverse proxy: the distribution's nginx terminates TLS (a certificate from a CA the test
 * made) with the exact configuration block docs/remote.md shows, and forwards to a loopback daemon without a
 * certificate. A scripted device pairs, links, gets a session and is revoked, all through the proxy; nginx's own
 * access log never holds the code or the device's secret.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { homePaths } from "../../shared/home.ts";
import { runDaemon, type DaemonInfo, type RunOutcome } from "../../daemon/main.ts";
import { parsePairingLink } from "../../protocol/remote.ts";
import { toBase64url } from "../../protocol/trust.ts";
import { makeChain } from "../tls/chain.ts";
import { nginx, PROXY_ADDRESS, startProxy, type NginxProxy } from "../tls/nginx.ts";
import { freePort, removeHome, tempHome, TEST_ENV } from "./harness.ts";
import { IpcClient } from "./ipc-client.ts";
import { Peer } from "./peer.ts";
import { pair, step, type Target } from "./remote-client.ts";

if (!nginx) console.warn("remote-proxy: nginx is not installed (apt-get install nginx): skipped");

describe.skipIf(!nginx)("server mode behind nginx (docs/remote.md's configuration)", () => {
  const home = tempHome();
  const dir = join(home, "nginx");
  let proxy: NginxProxy;
  let done: Promise<RunOutcome>;
  let client: IpcClient;
  let url: string;
  let authority: string;
  let ca: string;
  let daemonPort: number;
  let port: number;

  beforeAll(async () => {
    mkdirSync(join(home, "tls"), { recursive: true });
    const chain = makeChain(join(home, "tls"));
    ca = chain.caPem;
    const leaf = chain.leaf("proxy", ["localhost"]);
    [daemonPort, port] = [await freePort(), await freePort()];
    // Few authorize requests per address and (practically) no refill, so the limit shows after a handful.
    writeFileSync(join(home, "config.json"), JSON.stringify({ remote_limits: { authorizeBurst: 5, authorizePerSecond: 0.001 } }));
    url = `wss://localhost:${port}/extension`;
    authority = `localhost:${port}`;
    const { promise, resolve } = Promise.withResolvers<DaemonInfo>();
    done = runDaemon({
      home,
      env: { ...TEST_ENV, BSK_PAIRING_INTERVAL_MS: "0" },
      // nginx connects from PROXY_ADDRESS (proxy_bind in docs/remote.md's block): only its X-Forwarded-For is believed.
      server: { listen: "127.0.0.1", port: daemonPort, publicUrl: url, trustedProxies: [PROXY_ADDRESS] },
      mirrorLog: false,
      onReady: resolve,
    });
    const first = await Promise.race([promise, done]);
    if ("kind" in first) throw new Error("server did not start");
    client = await IpcClient.connect(homePaths(home, { ...process.env, ...TEST_ENV }));

    proxy = await startProxy({ dir, port, daemonPort, cert: leaf.cert, key: leaf.key });
  });

  afterAll(async () => {
    await proxy?.stop();
    client?.send({ id: "stop", method: "system.shutdown" });
    await done;
    client?.close();
    removeHome(home);
  });

  test("pair, link, start a session and revoke through the proxy; nginx's log holds no secret", async () => {
    const code = await client.request("system.pairing_code", {});
    const parsed = parsePairingLink(code.result.link);
    if (!parsed.ok) throw new Error(parsed.why);
    expect(parsed.link.authority).toBe(authority);
    const target = { url, authority, ca };
    const d = await pair(target, parsed.link);
    const peer = await Peer.connect({ port: 0, remote: { url, ca, authority, device: d } });
    expect((await peer.handshake()).error).toBeUndefined();
    expect(peer.daemonProven).toBe(true);

    const started = await client.request("session.start", { browser: d.id, focus: false });
    expect(started.error).toBeUndefined();
    expect([...peer.sessions.keys()]).toContain(started.result.session_id);

    const t0 = performance.now();
    expect((await client.request("devices.revoke", { device_id: d.id })).result.closed_links).toBe(1);
    await peer.closed;
    expect(performance.now() - t0).toBeLessThan(1000);

    const log = proxy.accessLog();
    expect(log).toContain("POST /extension/authorize");
    expect(log).toContain("GET /extension");
    for (const secret of [parsed.link.code, toBase64url(d.secret)]) expect(log).not.toContain(secret);
  });

  test("attack: a local client beside nginx rotating X-Forwarded-For hits the limit; clients through nginx count by their own address", async () => {
    const codes = (r: { status: number }[]) => r.map((x) => x.status);
    // Straight to the daemon's loopback port, from an address that is not the proxy's, a new X-Forwarded-For each time.
    const rogue = (i: number): Target => ({
      url: `ws://127.0.0.1:${daemonPort}/extension`,
      authority,
      headers: { "X-Forwarded-For": `10.0.0.${i}` },
    });
    // It is 127.0.0.1, as the first test's client was (nginx said so): whatever that one used counts against it too.
    const direct = [];
    for (let i = 1; i <= 8; i++) direct.push(await step(rogue(i), "pair-begin", { nonce: "x".repeat(43) }));
    const limited = codes(direct).indexOf(429);
    expect(limited).toBeGreaterThanOrEqual(0);
    expect(limited).toBeLessThanOrEqual(5);
    expect(codes(direct).slice(limited)).toEqual(Array(8 - limited).fill(429));
    expect(direct[limited]!.body.error).toMatchObject({
      code: "permission_denied",
      data: { reason: "rate_limited" },
      hint: expect.any(String),
    });
    expect(Number(direct[limited]!.retryAfter)).toBeGreaterThan(0);

    // Through nginx: each client is its own address, whatever X-Forwarded-For it sends itself.
    const viaProxy = (from: string, i: number): Target => ({ url, authority, ca, from, headers: { "X-Forwarded-For": `10.1.0.${i}` } });
    const a = [];
    for (let i = 1; i <= 7; i++) a.push(await step(viaProxy("127.0.0.3", i), "pair-begin", { nonce: "y".repeat(43) }));
    expect(codes(a)).toEqual([404, 404, 404, 404, 404, 429, 429]);
    const b = await step(viaProxy("127.0.0.4", 99), "pair-begin", { nonce: "z".repeat(43) });
    expect(b.status).toBe(404);
    expect(b.body.error.data.reason).toBe("no_pairing_code");
  });
});
