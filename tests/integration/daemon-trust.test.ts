/**
 * Trust both ways on the extension link, and who may speak for a session: a peer without this install's secret is
 * never a browser; pairing by code; a browser's events and replies count only for what it owns.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { LABELS, normalizeCode, randomBase64url, toBase64url, transcript, xorBytes } from "../../protocol/trust.ts";
import { APP_VERSION, PROTOCOL_VERSION } from "../../protocol/version.ts";
import { pairingKeyBytes } from "../../daemon/trust/proofs.ts";
import { removeHome, startDaemon, startSession, type TestDaemon } from "./harness.ts";
import { Peer } from "./peer.ts";

const mac = (key: Uint8Array, text: string) => createHmac("sha256", key).update(text).digest();

describe("a peer without the secret", () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon();
  });
  afterAll(async () => {
    await d.stop();
    removeHome(d.home);
  });

  test("is refused at its handshake and closed; it never becomes a browser, so no session can start on it", async () => {
    const intruder = await Peer.connect({ port: d.port, label: "intruder" });
    const r = await intruder.handshake();
    expect(r.error).toMatchObject({ code: "permission_denied", data: { reason: "untrusted_extension" } });
    expect(intruder.daemonProven).toBe(false);
    expect((await intruder.closed).code).toBe(4005);
    const c = await d.client();
    expect((await c.call("browser.list")).browsers).toEqual([]);
    const start = await c.request("session.start", { focus: false }, { timeout_ms: 400 });
    expect(start.error?.code).toBe("no_browser_connected");
    expect(intruder.requests.all).toEqual([]);
  });

  test("attack: a forged Origin learns no name, version, protocol or key id before it proves the secret", async () => {
    // A second extension can set Origin: chrome-extension://<bsk's id> (declarativeNetRequest): the upgrade is
    // accepted, so every answer before the proof must be free of what identifies this install or its release.
    const { key_id } = (await (await d.client()).call("system.status")).daemon;
    const heard: string[] = [];
    const probe = async () => {
      const p = await Peer.connect({ port: d.port, label: "forged" });
      p.ws.addEventListener("message", (e) => heard.push(String(e.data)));
      return p;
    };
    const current = await probe();
    const hello = await current.request("system.hello", { protocol_version: PROTOCOL_VERSION, nonce: randomBase64url(32) });
    expect(Object.keys(hello.result).sort()).toEqual(["nonce", "proof"]);
    const wrongProof = await probe();
    expect((await wrongProof.handshake()).error?.data?.reason).toBe("untrusted_extension");
    // Another protocol major is not judged before the proof: the answer is the same two fields.
    const other = await probe();
    const oldHello = await other.request("system.hello", { protocol_version: "1.0", nonce: randomBase64url(32) });
    expect(Object.keys(oldHello.result).sort()).toEqual(["nonce", "proof"]);
    const early = await probe();
    expect((await early.request("system.handshake", { protocol_version: "1.0", proof: "x" })).error?.code).toBe("protocol_error");
    const pairing = await probe();
    expect((await pairing.request("system.pair_begin", { protocol_version: "1.0", nonce: randomBase64url(32) })).error?.code).toBe(
      "not_found",
    );
    for (const p of [current, wrongProof, other, early, pairing]) p.close();
    expect(heard.length).toBeGreaterThanOrEqual(6);
    const told = heard.join("\n");
    for (const secretOf of ["bsk-daemon", `"${PROTOCOL_VERSION}"`, `"${APP_VERSION}"`, key_id]) expect(told).not.toContain(secretOf);
    for (const field of ["server", "version", "protocol_version", "daemon_version", "daemon_protocol", "key_id"])
      expect(told).not.toContain(`"${field}"`);
  });

  test("the daemon proves the secret in its hello, for the port the extension dialed", async () => {
    const peer = await Peer.connect({ port: d.port, secret: d.secret });
    const nonceE = randomBase64url(32);
    const hello = await peer.request("system.hello", { protocol_version: PROTOCOL_VERSION, nonce: nonceE });
    const expected = mac(d.secret, transcript(LABELS.daemonProof, d.port, nonceE, hello.result.nonce));
    expect(hello.result.proof).toBe(toBase64url(expected));
    expect(hello.result.proof).not.toBe(toBase64url(mac(d.secret, transcript(LABELS.daemonProof, d.port + 1, nonceE, hello.result.nonce))));
    // Nothing but the handshake may follow; a second hello is refused.
    expect((await peer.request("system.hello", { protocol_version: PROTOCOL_VERSION, nonce: nonceE })).error?.code).toBe("protocol_error");
    peer.close();
  });

  test("a handshake without hello, or a replayed proof on another link, is refused", async () => {
    const a = await Peer.connect({ port: d.port, secret: d.secret });
    const noHello = await a.request("system.handshake", {
      proof: "x",
      client: "bsk-extension",
      version: "0",
      protocol_version: PROTOCOL_VERSION,
      instance_id: "i",
      browser: { name: "C", version: "1" },
      label: "l",
    });
    expect(noHello.error?.message).toContain("system.hello");
    // A proof recorded on one link is worthless on another (fresh daemon nonce).
    const nonceE = randomBase64url(32);
    const hello = await a.request("system.hello", { protocol_version: PROTOCOL_VERSION, nonce: nonceE });
    const proof = toBase64url(mac(d.secret, transcript(LABELS.extensionProof, d.port, nonceE, hello.result.nonce)));
    const b = await Peer.connect({ port: d.port });
    await b.request("system.hello", { protocol_version: PROTOCOL_VERSION, nonce: nonceE });
    const replay = await b.request("system.handshake", {
      proof,
      client: "bsk-extension",
      version: "0",
      protocol_version: PROTOCOL_VERSION,
      instance_id: "i",
      browser: { name: "C", version: "1" },
      label: "l",
    });
    expect(replay.error?.data?.reason).toBe("untrusted_extension");
    a.close();
  });
});

describe("pairing by code", () => {
  let d: TestDaemon;
  beforeAll(async () => {
    // One try a second is tested below; here tries follow each other at once.
    d = await startDaemon({ env: { BSK_PAIRING_TTL_MS: "60000", BSK_PAIRING_INTERVAL_MS: "0" } });
  });
  afterAll(async () => {
    await d.stop();
    removeHome(d.home);
  });

  async function pair(code: string, opts: { wrongProof?: boolean } = {}) {
    const k = pairingKeyBytes(normalizeCode(code));
    const peer = await Peer.connect({ port: d.port });
    const nonceE = randomBase64url(32);
    const begin = await peer.request("system.pair_begin", { protocol_version: PROTOCOL_VERSION, nonce: nonceE });
    if (begin.error) return { begin, peer };
    const t = (label: string) => transcript(label, d.port, nonceE, begin.result.nonce);
    const daemonProved = begin.result.proof === toBase64url(mac(k, t(LABELS.pairDaemon)));
    const proof = opts.wrongProof ? toBase64url(mac(k, t(LABELS.pairDaemon))) : toBase64url(mac(k, t(LABELS.pairExtension)));
    const finish = await peer.request("system.pair_finish", { proof });
    const secret = finish.result ? xorBytes(Buffer.from(finish.result.sealed_secret, "base64url"), mac(k, t(LABELS.pairSeal))) : undefined;
    return { begin, finish, daemonProved, secret, peer };
  }

  test("bsk daemon pair's code gives the install's secret once; then the link closes", async () => {
    const c = await d.client();
    const issued = await c.call("system.pairing_code");
    expect(issued.code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(issued.ws_port).toBe(d.port);
    const r = await pair(issued.code.toLowerCase());
    expect(r.daemonProved).toBe(true);
    expect(r.secret).toEqual(Buffer.from(d.secret));
    expect(r.finish?.result.key_id).toBe((await c.call("system.status")).daemon.key_id);
    expect((await r.peer.closed).code).toBe(4006);
    // Used: the same code gets nothing.
    const again = await pair(issued.code);
    expect(again.begin.error).toMatchObject({ code: "not_found", data: { reason: "no_pairing_code" } });
  });

  test("a wrong guess does not burn the code: the right code still pairs after wrong ones", async () => {
    const c = await d.client();
    const issued = await c.call("system.pairing_code");
    for (let i = 1; i <= 2; i++) {
      const wrong = await pair("AAAA-BBBB-CCCC");
      expect(wrong.daemonProved).toBe(false);
      expect(wrong.finish?.error).toMatchObject({
        code: "permission_denied",
        data: { reason: "pairing_failed", retry_after_ms: 0 },
      });
      expect((await wrong.peer.closed).code).toBe(4007);
    }
    const right = await pair(issued.code);
    expect(right.secret).toEqual(Buffer.from(d.secret));
  });

  test("attack: wrong tries never use the code up (they used to burn it after 5); the right code still pairs", async () => {
    const c = await d.client();
    const issued = await c.call("system.pairing_code");
    for (let i = 0; i < 12; i++) expect((await pair("AAAA-BBBB-CCCC")).finish?.error?.data?.reason).toBe("pairing_failed");
    const late = await pair(issued.code);
    expect(late.begin.error).toBeUndefined();
    expect(late.secret).toEqual(Buffer.from(d.secret));
  });

  test("an extension that cannot prove the code gets no secret", async () => {
    const c = await d.client();
    const issued = await c.call("system.pairing_code");
    const r = await pair(issued.code, { wrongProof: true });
    expect(r.finish?.error?.data?.reason).toBe("pairing_failed");
    expect(r.secret).toBeUndefined();
  });

  test("the secret is never logged", async () => {
    await d.stop();
    const log = readFileSync(d.paths.log, "utf8");
    expect(log).toContain("extension paired by code");
    expect(log).not.toContain(toBase64url(d.secret));
    d = await startDaemon({ home: d.home });
  });
});

describe("what any local process can do before proving anything", () => {
  test("a peer's pairing tries wait the interval, doubling; the rest are refused without touching the code", async () => {
    // A minute rather than the default second, so that a slow machine cannot let a try through.
    const d = await startDaemon({ env: { BSK_PAIRING_TTL_MS: "120000", BSK_PAIRING_INTERVAL_MS: "60000" } });
    try {
      const c = await d.client();
      await c.call("system.pairing_code");
      const first = await Peer.connect({ port: d.port });
      const begin = await first.request("system.pair_begin", { protocol_version: PROTOCOL_VERSION, nonce: randomBase64url(32) });
      expect(begin.result?.nonce).toBeString();
      for (let i = 0; i < 10; i++) {
        const p = await Peer.connect({ port: d.port });
        const r = await p.request("system.pair_begin", { protocol_version: PROTOCOL_VERSION, nonce: randomBase64url(32) });
        expect(r.error).toMatchObject({ code: "permission_denied", data: { reason: "pairing_rate_limited", scope: "peer" } });
        expect(r.error?.hint).toContain("wrong tries do not use it up");
        expect(r.error?.data?.retry_after_ms).toBeGreaterThan(0);
        expect(r.error?.data?.retry_after_ms).toBeLessThanOrEqual(60_000);
        expect((await p.closed).code).toBe(4007);
      }
      // The try that was let in is still the link's to finish (a wrong proof: the code lives on, the next try waits).
      const finish = await first.request("system.pair_finish", { proof: toBase64url(new Uint8Array(32)) });
      expect(finish.error?.data).toMatchObject({ reason: "pairing_failed", retry_after_ms: 60_000 });
    } finally {
      await d.stop();
      removeHome(d.home);
    }
  });

  test("many links that prove nothing leave a bounded, summarised log", async () => {
    const d = await startDaemon();
    try {
      const links = 60;
      for (let i = 0; i < links; i++) {
        const intruder = await Peer.connect({ port: d.port, label: `intruder-${i}` });
        expect((await intruder.handshake()).error?.data?.reason).toBe("untrusted_extension");
        await intruder.closed;
      }
      for (let i = 0; i < links; i++) {
        const refused = await fetch(`http://127.0.0.1:${d.port}/extension`, {
          headers: { Origin: "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
        });
        expect(refused.status).toBe(403);
      }
      await d.stop();
      const lines = readFileSync(d.paths.log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      for (const msg of ["extension refused: it could not prove this install's secret", "extension connection refused"]) {
        const logged = lines.filter((l) => l.msg === msg);
        const one = logged.filter((l) => l.suppressed === undefined);
        const summary = logged.filter((l) => l.suppressed !== undefined);
        expect(one.length).toBe(5);
        expect(summary).toHaveLength(1);
        expect(summary[0]).toMatchObject({ level: "warn", suppressed: links - 5 });
      }
    } finally {
      removeHome(d.home);
    }
  });
});

describe("a browser speaks only for its own sessions", () => {
  test("events and replies from a second browser about a session it does not own are dropped and logged", async () => {
    const d = await startDaemon();
    try {
      const owner = await d.peer({ label: "owner" });
      const other = await d.peer({ label: "other" });
      const c = await d.client();
      const s = await startSession(c, { browser: owner.instanceId });

      // The other browser claims the session ended and answers the owner's request.
      other.event("session.ended", { session_id: s, reason: "window_closed", lost_tab_ids: [] });
      other.event("navigation", { session_id: s, tab_id: 1, url: "https://evil.example/" });
      const call = c.request("tab.list", { session_id: s });
      const held = await owner.next("tab.list");
      other.send({ id: held.id, result: { current_tab_id: 666, tabs: [] } });
      await other.barrier();
      held.reply({ current_tab_id: 1000, tabs: [] });
      expect((await call).result.current_tab_id).toBe(1000);
      const { sessions } = await c.call("session.list");
      expect(sessions.find((x: any) => x.session_id === s)).toMatchObject({ state: "live" });
      const events = await c.call("events", { session_id: s });
      expect(JSON.stringify(events)).not.toContain("evil.example");

      await c.call("session.stop", { session_id: s });
      await d.stop();
      const lines = readFileSync(d.paths.log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const dropped = lines.filter((l) => l.level === "warn" && l.browser === other.instanceId);
      expect(dropped.map((l) => l.msg)).toEqual([
        "dropped an event for a session this browser connection does not own",
        "dropped an event for a session this browser connection does not own",
        "dropped a response to a request this browser connection was never sent",
      ]);
    } finally {
      removeHome(d.home);
    }
  });

  test("a replaced connection's late events are dropped; the new connection serves the session", async () => {
    const d = await startDaemon();
    try {
      const first = await d.peer();
      const c = await d.client();
      const s = await startSession(c, { browser: first.instanceId });
      const second = await Peer.start({
        port: d.port,
        secret: d.secret,
        instanceId: first.instanceId,
        sessions: [...first.sessions.values()],
      });
      // The old socket may still deliver a frame before its close lands: it must not end the session.
      first.event("session.ended", { session_id: s, reason: "window_closed", lost_tab_ids: [] });
      expect((await first.closed).code).toBe(4003);
      await second.barrier();
      const call = c.request("tab.list", { session_id: s });
      (await second.next("tab.list")).reply({ current_tab_id: 7, tabs: [] });
      expect((await call).result.current_tab_id).toBe(7);
      second.close();
    } finally {
      await d.stop();
      removeHome(d.home);
    }
  });
});
