/**
 * Server mode over real TLS (a CA and certificates made by the test): pairing by link, the device link, renewal with
 * rotation, revoke, expiry, and every refusal the issue names — a used, expired or wrong code, a replayed authorize
 * request, a revoked device, a certificate that does not match, a query string, a foreign origin, a local hello on a
 * server. Scripted peers speak the real protocol (peer.ts, remote-client.ts). After the run no log or state file holds
 * the code or any device secret.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { homePaths } from "../../shared/home.ts";
import { runDaemon, type DaemonInfo, type RunOutcome } from "../../daemon/main.ts";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { parsePairingLink } from "../../protocol/remote.ts";
import { normalizeCode, toBase64url } from "../../protocol/trust.ts";
import { makeChain, type Chain } from "../tls/chain.ts";
import { freePort, removeHome, tempHome, TEST_ENV } from "./harness.ts";
import { IpcClient } from "./ipc-client.ts";
import { Peer } from "./peer.ts";
import { AuthorizeError, pair, renew, step, type Device, type Target } from "./remote-client.ts";
import { serverModeArgs } from "../tls/server-args.ts";

let chain: Chain;
beforeAll(() => {
  chain = makeChain();
});

interface Server {
  home: string;
  port: number;
  url: string;
  authority: string;
  target: Target;
  info: DaemonInfo;
  done: Promise<RunOutcome>;
  client: IpcClient;
  call(method: string, params?: Record<string, unknown>): Promise<any>;
  pairingLink(): Promise<ReturnType<typeof parsePairingLink> & { ok: true }>;
  stop(): Promise<void>;
}

const secretsSeen: string[] = [];
const homes: string[] = [];
/** Daemons a test started as processes: one that times out never reaches its own finally. */
const procs: ReturnType<typeof Bun.spawn>[] = [];
afterAll(async () => {
  for (const p of procs) p.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
  for (const h of homes) removeHome(h);
  if (chain) removeHome(chain.dir);
});

async function startServer(env: Record<string, string> = {}, config?: object): Promise<Server> {
  const home = tempHome();
  homes.push(home);
  if (config) writeFileSync(join(home, "config.json"), JSON.stringify(config));
  const port = await freePort();
  const leaf = chain.leaf(`localhost-${port}`, ["localhost", "127.0.0.1"]);
  const url = `wss://localhost:${port}/extension`;
  const { promise, resolve } = Promise.withResolvers<DaemonInfo>();
  const done = runDaemon({
    home,
    env: { ...TEST_ENV, ...env },
    server: { listen: "127.0.0.1", port, publicUrl: url, tlsCert: leaf.cert, tlsKey: leaf.key },
    mirrorLog: false,
    onReady: resolve,
  });
  const first = await Promise.race([promise, done]);
  if ("kind" in first) throw new Error(`server did not start: ${JSON.stringify(first)}`);
  const client = await IpcClient.connect(homePaths(home, { ...process.env, ...TEST_ENV }));
  const call = async (method: string, params: Record<string, unknown> = {}) => client.request(method, params);
  return {
    home,
    port,
    url,
    authority: `localhost:${port}`,
    target: { url, authority: `localhost:${port}`, ca: chain.caPem },
    info: first,
    done,
    client,
    call,
    async pairingLink() {
      const r = await call("system.pairing_code");
      expect(r.error).toBeUndefined();
      const parsed = parsePairingLink(r.result.link);
      if (!parsed.ok) throw new Error(parsed.why);
      secretsSeen.push(parsed.link.code);
      return parsed;
    },
    async stop() {
      client.send({ id: "stop", method: "system.shutdown" });
      await done;
      client.close();
    },
  };
}

function remember(d: Device): Device {
  secretsSeen.push(toBase64url(d.secret), Buffer.from(d.secret).toString("hex"));
  return d;
}

async function devicePeer(s: Server, d: Device): Promise<Peer> {
  return Peer.connect({ port: s.port, remote: { url: s.url, ca: chain.caPem, authority: s.authority, device: d } });
}

describe("server mode over TLS", () => {
  let s: Server;
  beforeAll(async () => {
    s = await startServer({ BSK_PAIRING_INTERVAL_MS: "0" }, { remote_limits: { authorizeBurst: 50, authorizePerSecond: 50 } });
  });
  afterAll(() => s.stop());

  test("pair by link, link as the device, start a session on it, list the device; the code works once", async () => {
    const { link } = await s.pairingLink();
    expect(link.authority).toBe(s.authority);
    const d = remember(await pair(s.target, link));
    expect(d.id).toMatch(/^dev_[0-9a-f]{16}$/);
    const peer = await devicePeer(s, d);
    const hs = await peer.handshake();
    expect(hs.error).toBeUndefined();
    expect(peer.daemonProven).toBe(true);

    const browsers = await s.call("browser.list");
    expect(browsers.result.browsers).toEqual([expect.objectContaining({ instance_id: peer.instanceId, device_id: d.id })]);
    const devices = await s.call("devices.list");
    expect(devices.result).toMatchObject({ server_mode: true, devices: [{ device_id: d.id, label: "remote-test", connected: true }] });
    expect(JSON.stringify(devices.result)).not.toContain(toBase64url(d.secret));

    const started = await s.call("session.start", { browser: d.id, focus: false });
    expect(started.error).toBeUndefined();
    expect([...peer.sessions.keys()]).toContain(started.result.session_id);

    // The code is burnt: a second pairing with it finds none.
    const again = await step(s.target, "pair-begin", { nonce: "n".repeat(43) });
    expect(again.status).toBe(404);
    expect(again.body.error.data.reason).toBe("no_pairing_code");
    peer.close();
  });

  test("a wrong code is refused (a try, not the code's end); a replayed finish is refused; a query string is refused", async () => {
    const { link } = await s.pairingLink();
    const begin = await step(s.target, "pair-begin", { nonce: "a".repeat(43) });
    expect(begin.status).toBe(200);
    const wrong = await step(s.target, "pair-finish", { challenge: begin.body.challenge, proof: "A".repeat(43) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.data).toMatchObject({ reason: "pairing_failed", retry_after_ms: 0 });
    const replay = await step(s.target, "pair-finish", { challenge: begin.body.challenge, proof: "A".repeat(43) });
    expect(replay.status).toBe(401);
    expect(replay.body.error.data.reason).toBe("bad_challenge");
    // The right code still pairs, and its finish cannot be replayed.
    const d = remember(await pair(s.target, link));
    expect(d.generation).toBe(1);

    const q = await fetch(`https://localhost:${s.port}/extension/authorize?code=${link.code}`, {
      method: "POST",
      tls: { ca: chain.caPem },
    } as RequestInit);
    expect(q.status).toBe(403);
  });

  test("attack: a rogue peer's wrong codes do not use up the person's code (five used to)", async () => {
    const { link } = await s.pairingLink();
    const rogue: Target = { ...s.target, from: "127.0.0.2" };
    for (let i = 0; i < 8; i++) {
      const begin = await step(rogue, "pair-begin", { nonce: "r".repeat(43) });
      expect(begin.status).toBe(200);
      const wrong = await step(rogue, "pair-finish", { challenge: begin.body.challenge, proof: "A".repeat(43) });
      expect(wrong.body.error.data.reason).toBe("pairing_failed");
    }
    const d = remember(await pair(s.target, link));
    expect(d.generation).toBe(1);
  });

  test("a client with the wrong code never sends anything derived from it: the server's proof does not check out", async () => {
    const { link } = await s.pairingLink();
    const err = await pair(s.target, { ...link, code: normalizeCode("ABCD-EFGH-JKMN") }).catch((e: Error) => e);
    expect(String(err)).toContain("did not prove the pairing code");
  });

  test("renewal rotates the secret: the old one works until the new one is used, then never; a replayed renewal is refused", async () => {
    const { link } = await s.pairingLink();
    const d1 = remember(await pair(s.target, link));
    const d2 = remember(await renew(s.target, d1));
    expect(d2.generation).toBe(2);
    expect(Date.parse(d2.expiresAt)).toBeGreaterThanOrEqual(Date.parse(d1.expiresAt));
    // A renewal answer lost on the way: the old secret still links.
    const old = await devicePeer(s, d1);
    expect((await old.handshake()).error).toBeUndefined();
    old.close();
    const fresh = await devicePeer(s, d2);
    expect((await fresh.handshake()).error).toBeUndefined();
    fresh.close();
    // The new one was used: the old one is retired.
    const stale = await devicePeer(s, d1);
    const refused = await stale.handshake();
    expect(refused.error).toMatchObject({ code: "permission_denied", data: { reason: "device_not_paired" } });
    expect((await stale.closed).code).toBe(4005);
    // A replayed renew-begin with the retired generation is refused too.
    const r = await step(s.target, "renew-begin", { device: d1.id, generation: "1", nonce: "b".repeat(43) });
    expect(r.status).toBe(401);
    await expect(renew(s.target, d1)).rejects.toBeInstanceOf(AuthorizeError);
  });

  test("a remote browser that answers a download with a file path gets nothing of this machine's disk", async () => {
    const { link } = await s.pairingLink();
    const d = remember(await pair(s.target, link));
    const peer = await devicePeer(s, d);
    expect((await peer.handshake()).error).toBeUndefined();
    const started = await s.call("session.start", { browser: d.id, focus: false });
    expect(started.error).toBeUndefined();
    const sid = started.result.session_id as string;
    // A file on the server, in a folder named the way the local download path must be named.
    const bait = join(s.home, `bsk-${sid}`);
    mkdirSync(bait);
    writeFileSync(join(bait, "secret.txt"), "server-only");
    const pending = s.call("download", { session_id: sid, target: "#a", out: join(s.home, "got.txt") });
    const req = await peer.next("download");
    req.reply({
      tab_id: req.params.tab_id ?? 10,
      target: null,
      effect: { kind: "none" },
      url: "https://example.test/x",
      name: "secret.txt",
      mime: "text/plain",
      size: 11,
      local_path: join(bait, "secret.txt"),
      effect_state: "committed",
    });
    const r = await pending;
    expect(r.error).toMatchObject({ data: { reason: "download_path_refused", effect_state: "committed" } });
    expect(readFileSync(join(bait, "secret.txt"), "utf8")).toBe("server-only");
    expect((await s.call("downloads", { session_id: sid })).result.downloads).toEqual([]);
    peer.close();
  });

  test("over the link a browser reads only its own session's transfers: another session's id, another device's session refused", async () => {
    const [d1, d2] = [
      remember(await pair(s.target, (await s.pairingLink()).link)),
      remember(await pair(s.target, (await s.pairingLink()).link)),
    ];
    const [p1, p2] = [await devicePeer(s, d1!), await devicePeer(s, d2!)];
    expect((await p1.handshake()).error).toBeUndefined();
    expect((await p2.handshake()).error).toBeUndefined();
    const start = async (d: Device) => (await s.call("session.start", { browser: d.id, focus: false })).result.session_id as string;
    const [mine, mineToo, theirs] = [await start(d1!), await start(d1!), await start(d2!)];
    // The server-side agent stages an upload into the first session.
    const bytes = new TextEncoder().encode("server secret");
    const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
    const begun = await s.call("transfer.begin", { session_id: mine, name: "secret.txt", size: bytes.length, sha256 });
    const id = begun.result.transfer_id as string;
    expect(
      (await s.call("transfer.chunk", { session_id: mine, transfer_id: id, offset: 0, data: bytes.toBase64() })).error,
    ).toBeUndefined();
    expect((await s.call("transfer.finish", { session_id: mine, transfer_id: id })).error).toBeUndefined();

    expect((await p1.request("transfer.read", { session_id: mine, transfer_id: id })).result).toMatchObject({
      data: bytes.toBase64(),
      eof: true,
    });
    // The same browser, its other session: the id is not that session's.
    const other = await p1.request("transfer.read", { session_id: mineToo, transfer_id: id });
    expect(other.error).toMatchObject({ code: "not_found", data: { reason: "no_transfer" } });
    // Another device: neither the session nor the id through its own session.
    const foreign = await p2.request("transfer.read", { session_id: mine, transfer_id: id });
    expect(foreign.error).toMatchObject({ code: "permission_denied", data: { reason: "not_your_session" } });
    const viaOwn = await p2.request("transfer.read", { session_id: theirs, transfer_id: id });
    expect(viaOwn.error).toMatchObject({ code: "not_found", data: { reason: "no_transfer" } });
    const release = await p2.request("transfer.release", { session_id: mine, transfer_id: id });
    expect(release.error).toMatchObject({ code: "permission_denied" });
    const overwrite = await p2.request("transfer.chunk", { session_id: mine, transfer_id: id, offset: 0, data: "AAAA" });
    expect(overwrite.error).toMatchObject({ code: "permission_denied" });
    // Still there, unchanged.
    expect((await s.call("transfer.read", { session_id: mine, transfer_id: id })).result).toMatchObject({ data: bytes.toBase64() });
    p1.close();
    p2.close();
  });

  test("a transfer a remote browser sends past the file cap is cut there and nothing of it is kept", async () => {
    // The store's caps are read from the process environment when the daemon starts.
    process.env.BSK_TRANSFER_MAX_FILE_BYTES = "4096";
    let s: Server;
    try {
      s = await startServer({ BSK_PAIRING_INTERVAL_MS: "0" });
    } finally {
      delete process.env.BSK_TRANSFER_MAX_FILE_BYTES;
    }
    try {
      const d = remember(await pair(s.target, (await s.pairingLink()).link));
      const peer = await devicePeer(s, d);
      expect((await peer.handshake()).error).toBeUndefined();
      const sid = (await s.call("session.start", { browser: d.id, focus: false })).result.session_id as string;
      const declared = await peer.request("transfer.begin", { session_id: sid, name: "big.bin", size: 5000 });
      expect(declared.error).toMatchObject({ code: "invalid_params", data: { reason: "file_too_large", limit_bytes: 4096 } });
      const id = (await peer.request("transfer.begin", { session_id: sid, name: "big.bin" })).result.transfer_id as string;
      const piece = new Uint8Array(3000).toBase64();
      expect((await peer.request("transfer.chunk", { session_id: sid, transfer_id: id, offset: 0, data: piece })).error).toBeUndefined();
      const past = await peer.request("transfer.chunk", { session_id: sid, transfer_id: id, offset: 3000, data: piece });
      expect(past.error).toMatchObject({ code: "invalid_params", data: { reason: "file_too_large", limit_bytes: 4096 } });
      const after = await peer.request("transfer.finish", { session_id: sid, transfer_id: id });
      expect(after.error).toMatchObject({ code: "not_found", data: { reason: "no_transfer" } });
      expect(readdirSync(join(s.home, "transfers", sid), { recursive: true })).toEqual([]);
      peer.close();
    } finally {
      await s.stop();
    }
  });

  test("revoke closes the live link within a second and refuses the device afterwards", async () => {
    const { link } = await s.pairingLink();
    const d = remember(await pair(s.target, link));
    const peer = await devicePeer(s, d);
    expect((await peer.handshake()).error).toBeUndefined();
    const t0 = performance.now();
    const r = await s.call("devices.revoke", { device_id: d.id });
    expect(r.result).toEqual({ revoked: [d.id], closed_links: 1 });
    const closed = await peer.closed;
    expect(closed.code).toBe(4008);
    expect(performance.now() - t0).toBeLessThan(1000);
    const again = await devicePeer(s, d);
    expect((await again.handshake()).error).toMatchObject({ data: { reason: "device_not_paired" } });
    expect((await step(s.target, "renew-begin", { device: d.id, generation: "1", nonce: "c".repeat(43) })).status).toBe(401);
    expect((await s.call("devices.revoke", { device_id: d.id })).error).toMatchObject({ code: "not_found" });
  });

  test("a malformed Authorization header, a GET, a huge body and a body that is not JSON are refused in words", async () => {
    const post = (headers: Record<string, string>, body?: string, method = "POST") =>
      fetch(`https://localhost:${s.port}/extension/authorize`, {
        method,
        headers: { Origin: `chrome-extension://${EXTENSION_ID}`, ...headers },
        body,
        tls: { ca: chain.caPem },
      } as RequestInit).then(async (r) => ({ status: r.status, body: await r.json() }));
    for (const bad of [
      "",
      "Bearer x",
      'Bsk pair-begin nonce="a"b"',
      `Bsk pair-begin nonce="${"a".repeat(3000)}"`,
      'Bsk unknown-step nonce="x"',
    ]) {
      const r = await post({ Authorization: bad });
      expect({ bad, status: r.status, reason: r.body.error.data?.reason }).toEqual({ bad, status: 400, reason: "bad_authorization" });
    }
    expect((await post({ Authorization: 'Bsk pair-begin nonce="short"' })).status).toBe(400);
    expect((await post({}, undefined, "GET")).status).toBe(405);
    const big = await post(
      { Authorization: 'Bsk pair-finish challenge="c", proof="p"', "content-type": "application/json" },
      "x".repeat(100_000),
    );
    expect(big.status).toBe(413);
    const notJson = await post({ Authorization: 'Bsk pair-finish challenge="c", proof="p"' }, "{not json");
    expect(notJson.status).toBe(400);
    // None of it paired anything.
    expect((await s.call("devices.list")).result.devices.every((d: { label: string }) => d.label === "remote-test")).toBe(true);
  });

  test("the extension's CORS preflight is answered for its own origin only", async () => {
    const pre = (origin: string) =>
      fetch(`https://localhost:${s.port}/extension/authorize`, {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, content-type",
        },
        tls: { ca: chain.caPem },
      } as RequestInit);
    const ok = await pre(`chrome-extension://${EXTENSION_ID}`);
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe(`chrome-extension://${EXTENSION_ID}`);
    expect(ok.headers.get("access-control-allow-headers")).toContain("authorization");
    const evil = await pre("https://evil.example");
    expect(evil.status).toBe(403);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    const answer = await step(s.target, "pair-begin", { nonce: "h".repeat(43) });
    expect(answer.status).toBe(404);
  });

  test("a local hello, a foreign origin and a plain-text dial are refused", async () => {
    const local = await Peer.connect({
      port: s.port,
      remote: { url: s.url, ca: chain.caPem, authority: s.authority, device: undefined as never },
    }).catch(() => null);
    expect(local).not.toBeNull();
    const hello = await local!.request("system.hello", { protocol_version: "3.1", nonce: "d".repeat(43) });
    expect(hello.error).toMatchObject({ code: "permission_denied", data: { reason: "device_not_paired" } });
    // Attack: another major from a device nobody paired is not told the server's versions either.
    const probe = await Peer.connect({
      port: s.port,
      remote: { url: s.url, ca: chain.caPem, authority: s.authority, device: undefined as never },
    });
    const old = await probe.request("system.hello", { protocol_version: "1.0", nonce: "d".repeat(43), device_id: "dev_0", generation: 1 });
    expect(old.error).toMatchObject({ code: "permission_denied", data: { reason: "device_not_paired" } });
    expect(JSON.stringify(old)).not.toMatch(/bsk-daemon|daemon_version|daemon_protocol|protocol_version/);
    probe.close();
    const foreign = await step({ ...s.target, origin: "https://evil.example" }, "pair-begin", { nonce: "e".repeat(43) });
    expect(foreign.status).toBe(403);
    const plain = await fetch(`http://localhost:${s.port}/extension/authorize`, { method: "POST" }).catch((e: Error) => e);
    expect(plain instanceof Error || (plain as Response).status >= 400).toBe(true);
  });
});

describe("server mode refuses to start unsafely", () => {
  test("a certificate for another host, and a plain listener off loopback, are refused with a clear error", async () => {
    const other = chain.leaf("other", ["other.test"]);
    const home = tempHome();
    homes.push(home);
    const port = await freePort();
    const base = { listen: "127.0.0.1", port, publicUrl: `wss://localhost:${port}/extension` };
    await expect(runDaemon({ home, env: TEST_ENV, server: { ...base, tlsCert: other.cert, tlsKey: other.key } })).rejects.toMatchObject({
      code: "invalid_params",
      data: { reason: "tls_host_mismatch" },
    });
    await expect(runDaemon({ home, env: TEST_ENV, server: { ...base, listen: "0.0.0.0" } })).rejects.toMatchObject({
      data: { reason: "plain_listen_not_loopback" },
    });
    await expect(
      runDaemon({ home, env: TEST_ENV, server: { ...base, publicUrl: `https://localhost:${port}/extension` } }),
    ).rejects.toMatchObject({ data: { reason: "bad_public_url" } });
  });

  test("an expired grant is refused on the link and at renewal", async () => {
    const s = await startServer({ BSK_DEVICE_GRANT_MS: "1500ms", BSK_DEVICE_RENEW_MS: "500ms" });
    try {
      const { link } = await s.pairingLink();
      const d = remember(await pair(s.target, link));
      const deadline = Date.parse(d.expiresAt);
      // The grant runs out by the clock; nothing else can make it expire.
      while (Date.now() <= deadline) await Bun.sleep(Math.max(1, deadline - Date.now() + 1));
      const peer = await devicePeer(s, d);
      expect((await peer.handshake()).error).toMatchObject({ data: { reason: "grant_expired" } });
      const r = await step(s.target, "renew-begin", { device: d.id, generation: "1", nonce: "f".repeat(43) });
      expect(r.status).toBe(401);
      expect(r.body.error.data.reason).toBe("grant_expired");
    } finally {
      await s.stop();
    }
  });

  test("a grant that runs out while its link is live closes the link (4009); a renewal before that keeps it", async () => {
    const s = await startServer({ BSK_DEVICE_GRANT_MS: "4s", BSK_DEVICE_RENEW_MS: "1s" });
    try {
      const { link } = await s.pairingLink();
      const d1 = remember(await pair(s.target, link));
      const peer = await devicePeer(s, d1);
      expect((await peer.handshake()).error).toBeUndefined();
      // Renewed on the live link halfway through the grant: its expiry moves, and the link outlives the first grant.
      await Bun.sleep(2000);
      const d2 = remember(await renew(s.target, d1));
      expect(Date.parse(d2.expiresAt)).toBeGreaterThan(Date.parse(d1.expiresAt) + 1000);
      const first = Date.parse(d1.expiresAt);
      const early = await Promise.race([peer.closed, Bun.sleep(Math.max(0, first - Date.now() + 300)).then(() => null)]);
      expect(early).toBeNull();
      const closed = await peer.closed;
      expect(closed).toEqual({ code: 4009, reason: "grant_expired" });
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(d2.expiresAt));
      expect(Date.now() - Date.parse(d2.expiresAt)).toBeLessThan(1000);
      const again = await devicePeer(s, d2);
      expect((await again.handshake()).error).toMatchObject({ data: { reason: "grant_expired" } });
    } finally {
      await s.stop();
    }
  }, 20_000);

  test("attack: a rogue peer guessing gets 429s with a hint and Retry-After; the person, elsewhere, still pairs", async () => {
    // A minute between one peer's tries, so that no machine is slow enough to let a second one through.
    const s = await startServer({ BSK_PAIRING_INTERVAL_MS: "60000" }, { remote_limits: { authorizeBurst: 20, authorizePerSecond: 0.001 } });
    try {
      const { link } = await s.pairingLink();
      const rogue: Target = { ...s.target, from: "127.0.0.2" };
      const first = await step(rogue, "pair-begin", { nonce: "r".repeat(43) });
      expect(first.status).toBe(200);
      const wrong = await step(rogue, "pair-finish", { challenge: first.body.challenge, proof: "A".repeat(43) });
      expect(wrong.body.error.data).toMatchObject({ reason: "pairing_failed", retry_after_ms: 60_000 });
      const reasons = new Set<string>();
      for (let i = 0; i < 30; i++) {
        const r = await step(rogue, "pair-begin", { nonce: "r".repeat(43) });
        expect(r.status).toBe(429);
        expect(Number(r.retryAfter)).toBeGreaterThan(0);
        expect(r.body.error).toMatchObject({ code: "permission_denied", hint: expect.stringContaining("wait") });
        expect(r.body.error.data.retry_after_ms).toBeGreaterThan(0);
        reasons.add(r.body.error.data.reason);
      }
      // First its own pairing wait, then its address's request limit: both say so, neither touches the code.
      expect([...reasons].sort()).toEqual(["pairing_rate_limited", "rate_limited"]);
      const d = remember(await pair(s.target, link));
      expect(d.generation).toBe(1);
    } finally {
      await s.stop();
    }
  });

  test("authorize attempts past the peer's limit get 429 with Retry-After", async () => {
    const s = await startServer({}, { remote_limits: { authorizeBurst: 3, authorizePerSecond: 0.01 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await step(s.target, "pair-begin", { nonce: "g".repeat(43) })).status);
      expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
      expect(statuses.slice(3)).toEqual([429, 429]);
    } finally {
      await s.stop();
    }
  });
});

describe("nothing about a credential is logged or stored", () => {
  test("no log or state file of any server home holds a pairing code or a device secret", () => {
    expect(secretsSeen.length).toBeGreaterThan(5);
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        const st = statSync(p);
        if (st.isDirectory()) walk(p);
        else if (name !== "trust.key") files.push(p);
      }
    };
    for (const h of homes) walk(h);
    expect(files.some((f) => f.endsWith("devices.json"))).toBe(true);
    expect(files.some((f) => f.endsWith("daemon.log"))).toBe(true);
    for (const f of files) {
      const text = readFileSync(f, "latin1");
      for (const secret of secretsSeen) {
        const code = secret.length === 12 ? [secret, `${secret.slice(0, 4)}-${secret.slice(4, 8)}-${secret.slice(8)}`] : [secret];
        for (const c of code) if (text.includes(c)) throw new Error(`${f} holds a credential`);
      }
    }
  });
});

describe("bsk daemon start --mode server (the CLI, as a supervisor runs it)", () => {
  test("runs in the foreground with JSON log lines on stdout; SIGHUP swaps the certificate and keeps live links", async () => {
    const home = tempHome();
    homes.push(home);
    const port = await freePort();
    const leaf = chain.leaf(`hup-${port}`, ["localhost"]);
    const url = `wss://localhost:${port}/extension`;
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../cli/main.ts"), ...serverModeArgs(port, url, leaf)], {
      env: { ...process.env, ...TEST_ENV, BSK_HOME: home, BSK_PAIRING_INTERVAL_MS: "0" },
      stdout: "pipe",
      stderr: "pipe",
    });
    procs.push(proc);
    const lines = jsonLines(proc.stdout as ReadableStream<Uint8Array>);
    try {
      expect((await lines.until((l) => l.msg === "daemon started")).ws_port).toBe(port);
      const client = await IpcClient.connect(homePaths(home, { ...process.env, ...TEST_ENV }));
      const code = await client.request("system.pairing_code", {});
      const parsed = parsePairingLink(code.result.link);
      if (!parsed.ok) throw new Error(parsed.why);
      secretsSeen.push(parsed.link.code);
      const target = { url, authority: `localhost:${port}`, ca: chain.caPem };
      const d = remember(await pair(target, parsed.link));
      const peer = await Peer.connect({ port, remote: { url, ca: chain.caPem, authority: target.authority, device: d } });
      expect((await peer.handshake()).error).toBeUndefined();

      // A new certificate from another CA, written over the old files, then SIGHUP.
      const other = makeChain(mkdtempSync(join(home, "other-ca-")));
      const next = other.leaf("next", ["localhost"]);
      writeFileSync(leaf.cert, readFileSync(next.cert));
      writeFileSync(leaf.key, readFileSync(next.key));
      proc.kill("SIGHUP");
      await lines.until((l) => l.msg === "TLS certificate reloaded");
      const withNew = await fetch(`https://localhost:${port}/nothing`, { tls: { ca: other.caPem } } as RequestInit);
      expect(withNew.status).toBe(404);
      const withOld = await fetch(`https://localhost:${port}/nothing`, { tls: { ca: chain.caPem } } as RequestInit).catch((e: Error) => e);
      expect(withOld).toBeInstanceOf(Error);
      // The link made before the reload lives on.
      await peer.barrier();
      expect((await client.request("browser.list", {})).result.browsers).toHaveLength(1);
      client.close();
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  });
});

/** The JSON lines of a stream, awaited by a predicate. */
function jsonLines(stream: ReadableStream<Uint8Array>) {
  const seen: any[] = [];
  const waiters = new Set<() => void>();
  void (async () => {
    const dec = new TextDecoder();
    let buf = "";
    const reader = stream.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      buf += dec.decode(r.value, { stream: true });
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        try {
          seen.push(JSON.parse(buf.slice(0, nl)));
        } catch {}
        buf = buf.slice(nl + 1);
      }
      for (const w of waiters) w();
      waiters.clear();
    }
  })();
  return {
    async until(pred: (l: any) => boolean): Promise<any> {
      for (;;) {
        const hit = seen.find(pred);
        if (hit) return hit;
        await new Promise<void>((resolve) => waiters.add(resolve));
      }
    },
  };
}
