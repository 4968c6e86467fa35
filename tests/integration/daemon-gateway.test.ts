/** The extension link: who may connect, the handshake, malformed frames, liveness, reconnects. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { PROTOCOL_VERSION } from "../../protocol/version.ts";
import { peakRss, removeHome, startDaemon, startSession, withSession, type TestDaemon } from "./harness.ts";
import { Peer } from "./peer.ts";

const OTHER_ID = "abcdefghijklmnopabcdefghijklmnop";
/** Same major as ours, another minor. */
const SKEWED = `${PROTOCOL_VERSION.split(".")[0]}.7`;
const NEXT_MAJOR = `${Number(PROTOCOL_VERSION.split(".")[0]) + 1}.0`;

/** A raw upgrade request, so the test sees the HTTP status a refused WebSocket gets. */
async function upgradeStatus(port: number, path: string, origin?: string): Promise<{ status: number; body: string }> {
  const { promise, resolve } = Promise.withResolvers<string>();
  let buf = "";
  const sock = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, d) {
        buf += d.toString();
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        if (buf.startsWith("HTTP/1.1 101")) return resolve(buf);
        const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length - end - 4 >= len) resolve(buf);
      },
      close() {
        resolve(buf);
      },
    },
  });
  sock.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n` +
      `${origin ? `Origin: ${origin}\r\n` : ""}\r\n`,
  );
  const text = await promise;
  sock.end();
  return { status: Number(text.split(" ")[1]), body: text.split("\r\n\r\n")[1] ?? "" };
}

describe("gateway", () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon({ env: { BSK_HANDSHAKE_MS: "500", BSK_RECONNECT_GRACE_MS: "150" } });
  });
  afterAll(async () => {
    await d.stop();
    removeHome(d.home);
  });

  test("refuses a wrong or missing Origin with 403 and a reason", async () => {
    const bad = await upgradeStatus(d.port, "/extension", `chrome-extension://${OTHER_ID}`);
    expect(bad.status).toBe(403);
    expect(bad.body).toContain("not allowed");
    expect((await upgradeStatus(d.port, "/extension", "https://evil.example")).status).toBe(403);
    expect((await upgradeStatus(d.port, "/extension")).status).toBe(403);
    await expect(Peer.connect({ port: d.port, origin: "https://evil.example" })).rejects.toThrow();
  });

  test("refuses other paths (404) and query strings (403)", async () => {
    const origin = `chrome-extension://${EXTENSION_ID}`;
    expect((await upgradeStatus(d.port, "/other", origin)).status).toBe(404);
    expect((await upgradeStatus(d.port, "/extension?token=x", origin)).status).toBe(403);
    expect((await upgradeStatus(d.port, "/extension", origin)).status).toBe(101);
  });

  test("an id added with system.allow_extension may connect, and is persisted", async () => {
    const c = await d.client();
    const r = await c.call("system.allow_extension", { extension_id: OTHER_ID });
    expect(r.allowed).toEqual([EXTENSION_ID, OTHER_ID]);
    const config = JSON.parse(await Bun.file(d.paths.config).text());
    expect(config.allowed_extensions).toEqual([OTHER_ID]);
    const peer = await Peer.start({ port: d.port, secret: d.secret, origin: `chrome-extension://${OTHER_ID}` });
    peer.close();
    await peer.closed;
  });

  test("a peer that never handshakes is closed after the handshake window", async () => {
    const peer = await Peer.connect({ port: d.port });
    const closed = await peer.closed;
    expect(closed.code).toBe(4001);
    expect(closed.reason).toContain("handshake");
  });

  test("a non-handshake first frame gets protocol_error; the link still accepts the handshake", async () => {
    const peer = await Peer.connect({ port: d.port, secret: d.secret });
    peer.send({ event: "system.heartbeat", payload: {} });
    const err = await peer.unmatched.next();
    expect(err.error?.code).toBe("protocol_error");
    expect(err.error?.message).toContain("system.hello");
    const r = await peer.handshake();
    expect(r.result).toMatchObject({ server: "bsk-daemon", protocol_version: PROTOCOL_VERSION, skew: false, heartbeat_ms: 1000 });
    peer.close();
  });

  test("malformed frames from the extension get protocol_error and the link lives on", async () => {
    const peer = await d.peer();
    peer.sendRaw("{not json");
    expect((await peer.unmatched.next()).error?.code).toBe("protocol_error");
    peer.sendRaw(JSON.stringify({ id: 9, bogus: true }));
    const second = await peer.unmatched.next();
    expect(second).toMatchObject({ id: 9, error: { code: "protocol_error" } });
    peer.event("session.ended", { session_id: 5 });
    expect((await peer.unmatched.next()).error?.message).toContain("session.ended");
    // Still served: a session starts through this very link.
    const c = await d.client();
    const s = await startSession(c);
    expect(s).toMatch(/^[a-z2-9]{4}$/);
    await c.call("session.stop", { session_id: s });
    peer.close();
    await peer.closed;
  });

  test("a different protocol major is refused with version_too_old naming both, then closed", async () => {
    const peer = await Peer.connect({ port: d.port, secret: d.secret, protocolVersion: NEXT_MAJOR });
    const r = await peer.handshake();
    expect(r.error?.code).toBe("version_too_old");
    expect(r.error?.data).toMatchObject({ reason: "daemon_too_old", daemon_protocol: PROTOCOL_VERSION, extension_protocol: NEXT_MAJOR });
    expect((await peer.closed).code).toBe(4002);
  });

  test("a different minor is accepted and shown as skew", async () => {
    const peer = await d.peer({ protocolVersion: SKEWED, label: "skewed" });
    const c = await d.client();
    const { browsers } = await c.call("browser.list");
    const b = browsers.find((x: any) => x.instance_id === peer.instanceId);
    expect(b).toMatchObject({ label: "skewed", protocol_version: SKEWED, skew: true, name: "Chromium", sessions: 0 });
    peer.close();
    await peer.closed;
  });

  test("the same instance reconnecting replaces the old link; the old link's late close removes nothing", async () => {
    const first = await d.peer({ label: "twice" });
    const c = await d.client();
    const s = await startSession(c, { browser: first.instanceId });
    const second = await Peer.start({
      port: d.port,
      secret: d.secret,
      instanceId: first.instanceId,
      label: "twice",
      sessions: [...first.sessions.values()],
    });
    expect((await first.closed).code).toBe(4003);
    const { browsers } = await c.call("browser.list");
    expect(browsers.filter((b: any) => b.instance_id === first.instanceId)).toHaveLength(1);
    // The session lives on and is served by the new link.
    const call = c.request("tab.list", { session_id: s });
    (await second.next("tab.list")).reply({ current_tab_id: null, tabs: [] });
    expect((await call).result).toEqual({ current_tab_id: null, tabs: [] });
    await c.call("session.stop", { session_id: s });
    second.close();
    await second.closed;
  });
});

describe("browser liveness", () => {
  test("a silent browser is dropped and its sessions end with browser_gone", async () => {
    await withSession({ env: { BSK_BROWSER_SILENCE_MS: "600" } }, async ({ peer, c, s }) => {
      expect((await peer.closed).code).toBe(4004);
      const r = await c.request("tab.list", { session_id: s });
      expect(r.error).toMatchObject({ code: "not_found", data: { reason: "session_ended", end_reason: "browser_gone" } });
    });
  });

  test("a closed link ends its sessions with browser_gone after the reconnect grace", async () => {
    await withSession({ env: { BSK_RECONNECT_GRACE_MS: "100" } }, async ({ peer, c, s }) => {
      peer.close();
      await peer.closed;
      // The call waits for the browser within the grace, then fails as the session ends.
      const r = await c.request("tab.list", { session_id: s });
      expect(r.error).toMatchObject({ code: "not_found", data: { reason: "session_ended", end_reason: "browser_gone" } });
      const { sessions } = await c.call("session.list");
      expect(sessions.find((x: any) => x.session_id === s)).toMatchObject({ state: "ended", end_reason: "browser_gone" });
    });
  });

  test("a browser that reconnects within the grace keeps its sessions (re-adopted by the handshake)", async () => {
    await withSession({ env: { BSK_RECONNECT_GRACE_MS: "5000" } }, async ({ d, peer, c, s }) => {
      const stray = { session_id: "zzzz", window_id: 1, tab_ids: [1], current_tab_id: 1 };
      peer.close();
      await peer.closed;
      const back = await Peer.connect({
        port: d.port,
        secret: d.secret,
        instanceId: peer.instanceId,
        sessions: [...peer.sessions.values(), stray],
      });
      const hs = await back.handshake();
      expect(hs.result.adopted).toEqual([s]);
      expect(hs.result.ended).toEqual([{ session_id: "zzzz", reason: "not_adoptable" }]);
      const call = c.request("tab.list", { session_id: s });
      (await back.next("tab.list")).reply({ current_tab_id: 1000, tabs: [] });
      expect((await call).result.current_tab_id).toBe(1000);
      back.close();
    });
  });

  test("a window closed while the link was down: missing from the handshake, then reported with its real reason", async () => {
    await withSession({ env: { BSK_RECONNECT_GRACE_MS: "5000" } }, async ({ d, peer, c, s }) => {
      peer.close();
      await peer.closed;
      const back = await Peer.connect({ port: d.port, secret: d.secret, instanceId: peer.instanceId, sessions: [] });
      expect((await back.handshake()).result.adopted).toEqual([]);
      back.event("session.ended", { session_id: s, reason: "window_closed", lost_tab_ids: [3] });
      await back.barrier();
      const { sessions } = await c.call("session.list");
      expect(sessions.find((x: any) => x.session_id === s)).toMatchObject({ end_reason: "window_closed", lost_tab_ids: [3] });
      back.close();
    });
  });
});

describe("message sizes on the link", () => {
  const hello = (size: number) =>
    `{"id":"h","method":"system.hello","params":{"protocol_version":"${PROTOCOL_VERSION}","nonce":"${"n".repeat(size)}"}}`;

  test("20 links that send 16 MiB frames before proving anything are closed at the 64 KiB message limit; the daemon holds none of it", async () => {
    // A handshake window long enough that only the message limit can close these links, however slow the machine.
    const d = await startDaemon({ subprocess: true, env: { BSK_HANDSHAKE_MS: "120000" } });
    try {
      const pid = d.proc!.pid;
      const before = peakRss(pid);
      const big = hello(16 * 1024 * 1024 - 200);
      const links = await Promise.all(Array.from({ length: 20 }, () => Peer.connect({ port: d.port })));
      for (const l of links) l.sendRaw(big);
      const codes = await Promise.all(links.map(async (l) => (await l.closed).code));
      expect(codes).toEqual(Array(20).fill(1009));
      // Nothing of it was buffered: 20 such frames once took the daemon 600 MB.
      expect(peakRss(pid) - before).toBeLessThan(32 * 1024 * 1024);
      // The real extension is still served.
      const peer = await d.peer();
      expect(peer.daemonProven).toBe(true);
    } finally {
      await d.stop();
      removeHome(d.home);
    }
  }, 120_000);

  test("before the handshake a frame over 16 KiB is refused with frame_too_large and the link closed; so is a binary message", async () => {
    const d = await startDaemon();
    try {
      const big = await Peer.connect({ port: d.port });
      big.sendRaw(hello(20 * 1024));
      expect((await big.unmatched.next()).error).toMatchObject({
        code: "protocol_error",
        data: { reason: "frame_too_large", max_bytes: 16 * 1024 },
      });
      expect((await big.closed).code).toBe(1009);

      const binary = await Peer.connect({ port: d.port });
      binary.ws.send(new Uint8Array([1, 2, 3]));
      expect((await binary.unmatched.next()).error?.message).toContain("only after the handshake");
      expect((await binary.closed).code).toBe(1003);

      // A hello of an ordinary size is answered.
      const ok = await Peer.connect({ port: d.port, secret: d.secret });
      expect((await ok.handshake()).result?.server).toBe("bsk-daemon");
      ok.close();
    } finally {
      await d.stop();
      removeHome(d.home);
    }
  });

  test("after the handshake a frame of megabytes comes in pieces and arrives whole, multi-byte text included", async () => {
    const d = await startDaemon();
    try {
      const peer = await d.peer();
      const c = await d.client();
      const s = await startSession(c, { browser: peer.instanceId });
      const title = "é😀中 ".repeat(300_000);
      const call = c.request("tab.list", { session_id: s });
      (await peer.next("tab.list")).reply({ current_tab_id: 1, tabs: [{ tab_id: 1, url: "https://a.example/", title }] });
      const r = await call;
      expect(r.result?.tabs?.[0]?.title).toBe(title);
      // The link lives on for ordinary frames.
      const next = c.request("tab.list", { session_id: s });
      (await peer.next("tab.list")).reply({ current_tab_id: 2, tabs: [] });
      expect((await next).result.current_tab_id).toBe(2);
      await c.call("session.stop", { session_id: s });
    } finally {
      await d.stop();
      removeHome(d.home);
    }
  });
});
