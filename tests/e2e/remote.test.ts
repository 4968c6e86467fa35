/**
 * Remote mode in real Chromium: a server-mode daemon (dist/bsk, its own $BSK_HOME) with a certificate from a CA made
 * here, trusted by the test browser's own NSS database (its HOME), never by turning certificate checks off. The
 * person pairs through the real popup; the agent on the server drives the browser from the server-side CLI; the
 * local link stays up beside the remote one. Attacks: a wrong key fingerprint, a used code, a certificate for
 * another host, a revoked device.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { evaluateInPage } from "./devtools.ts";
import { DEVELOPER_MODE, onExtensionsPage, relinkedAfter } from "./extensions-page.ts";
import { until, type World } from "./harness.ts";
import type { PersonPage } from "./person-page.ts";
import { certutil, startServer, startRemoteWorld, type RemoteWorld, type Server } from "./remote-world.ts";

if (!certutil) console.log("remote.test.ts skipped: certutil is missing (apt-get install libnss3-tools)");
const maybe = certutil ? describe : describe.skip;

let rw: RemoteWorld;
let server: Server;
let w: World;
let popup: PersonPage;

const pasteAndCheck = (link: string) => rw.pasteAndCheck(link);
const confirmAndWait = () => rw.confirmAndWait();
const remoteState = () => popup.evaluate(`document.querySelector('li[data-link="remote"]')?.dataset.state ?? null`);

maybe("remote mode through the real popup", () => {
  beforeAll(async () => {
    rw = await startRemoteWorld();
    ({ server, w, popup } = rw);
  }, 90_000);

  afterAll(async () => {
    await rw?.stop();
  });

  test("a link whose key fingerprint is not the server's: the server cannot prove it, nothing is paired", async () => {
    const link: string = (await server.ok(["daemon", "pair"])).link;
    const key = /key=([0-9a-f]{8})/.exec(link)![1]!;
    const wrong = link.replace(`key=${key}`, `key=${key === "00000000" ? "11111111" : "00000000"}`);
    await pasteAndCheck(wrong);
    expect(await popup.evaluate(`document.querySelector(".remote-confirm").dataset.host`)).toBe("localhost");
    expect(await confirmAndWait()).toBe("server_unproven");
    expect((await server.ok(["daemon", "devices"])).devices).toEqual([]);
  });

  test("a certificate that does not name the host dialed is refused by the browser", async () => {
    const link: string = (await server.ok(["daemon", "pair"])).link;
    // The certificate names localhost only: dialing 127.0.0.1 fails the browser's own check.
    await pasteAndCheck(link.replace("wss://localhost:", "wss://127.0.0.1:"));
    expect(await confirmAndWait()).toBe("network");
    expect((await server.ok(["daemon", "devices"])).devices).toEqual([]);
  });

  let deviceId = "";
  let sessionId = "";
  test("pair: the popup shows host and key, confirms, and links beside the local link", async () => {
    const link: string = (await server.ok(["daemon", "pair"])).link;
    await pasteAndCheck(link);
    const shown = await popup.evaluate(`document.querySelector(".remote-confirm").textContent`);
    const key = /key=([0-9a-f]{8})/.exec(link)![1]!;
    expect(shown).toContain(`localhost:${server.port}`);
    expect(shown).toContain(key);
    expect(await confirmAndWait()).toBe("paired");
    await popup.waitFor(`document.querySelector('li[data-link="remote"]')?.dataset.state === "connected"`, 15_000);
    expect(await popup.evaluate(`document.querySelector('li[data-link="local"]').dataset.state`)).toBe("connected");
    const devices = (await server.ok(["daemon", "devices"])).devices;
    expect(devices).toHaveLength(1);
    expect(devices[0].connected).toBe(true);
    deviceId = devices[0].device_id;
    // The grant lives in chrome.storage.local only; the code is not in it.
    const grant = await popup.evaluate(`chrome.storage.local.get("remote_grant").then((v) => v.remote_grant)`);
    expect(grant).toMatchObject({ device_id: deviceId, host: "localhost", authority: `localhost:${server.port}`, generation: 1 });
    expect(JSON.stringify(grant)).not.toContain(/pair=([A-Z0-9-]+)/.exec(link)![1]!);
    // The same link again: the code was used.
    await pasteAndCheck(link);
    expect(await confirmAndWait()).toBe("no_code");
  });

  test("the server-side agent starts a session, snapshots and clicks; the local daemon never sees it", async () => {
    sessionId = (await server.ok(["session", "start", "--no-focus"])).session_id;
    await server.ok(["navigate", w.fixtures.url("/shop.html"), "--session", sessionId]);
    const snap = await server.ok(["snapshot", "--session", sessionId]);
    const line = (snap.text as string).split("\n").find((l) => /button|link/.test(l) && /@e\d+/.test(l));
    expect(line).toBeDefined();
    const clicked = await server.ok(["click", line!.match(/@e\d+/)![0], "--session", sessionId]);
    expect(clicked).toBeDefined();
    expect((await w.ok(["session", "list"])).sessions.map((s: any) => s.session_id)).not.toContain(sessionId);
    // The person sees where the agent is.
    await popup.waitFor(`document.querySelector('li[data-session="${sessionId}"] .remote')?.textContent === "remote agent on localhost"`);
  });

  test("a remote session asks the person before borrowing, even with the popup's confirm switch off", async () => {
    await w.person.asExtension(`chrome.storage.local.set({ confirm_borrow: false })`);
    try {
      const tabId = await w.person.openInOwnWindow(w.fixtures.url("/borrow-form.html?remote-borrow"));
      const pending = server.bsk(["tab", "borrow", String(tabId), "--session", sessionId, "--json"]);
      // The consent window opens although the switch says not to ask; the person says no.
      const shown = await w.person.answerConsent(false);
      expect(shown.url).toContain("remote-borrow");
      const r = await pending;
      expect(r.code).toBe(1);
      expect(r.json.error).toMatchObject({ code: "permission_denied", data: { reason: "borrow_denied" } });
      expect((await server.ok(["tab", "list", "--session", sessionId])).tabs.some((t: any) => t.tab_id === tabId)).toBe(false);
    } finally {
      await w.person.asExtension(`chrome.storage.local.remove("confirm_borrow")`);
    }
  });

  test("revoke: the link closes within a second and the popup says so; the device is refused afterwards", async () => {
    const started = Date.now();
    await server.ok(["daemon", "revoke", deviceId]);
    await popup.waitFor(`document.querySelector('li[data-link="remote"]')?.dataset.state === "revoked"`, 5_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await popup.evaluate(`document.querySelector('li[data-link="remote"] .error').textContent`)).toContain("pair again");
    expect(await popup.evaluate(`document.querySelector('li[data-link="remote"] .error').dataset.reason`)).toBe("revoked");
    // It does not dial again: the server never sees it connected.
    expect((await server.ok(["daemon", "devices"])).devices.filter((d: any) => d.connected)).toEqual([]);
    // Disconnect forgets the grant.
    await popup.clickSelector(`li[data-link="remote"] button[data-action="disconnect"]`);
    await popup.waitFor(`document.querySelector('li[data-link="remote"]') === null`);
    expect(await popup.evaluate(`chrome.storage.local.get("remote_grant").then((v) => v.remote_grant ?? null)`)).toBeNull();
    expect(await remoteState()).toBeNull();
  });

  const pairWith = (s: Server) => rw.pairWith(s);
  const forget = () => rw.forget();

  test("renewal: once renew_after has passed the extension renews, the secret rotates, and the link carries on", async () => {
    // Renewal is due at once; the grant itself lasts long.
    const s2 = await startServer(rw.chain, { BSK_DEVICE_RENEW_MS: "1ms" });
    try {
      const id = await pairWith(s2);
      const renewed = await until(
        "the grant renewed",
        async () => {
          const d = (await s2.ok(["daemon", "devices"])).devices.find((x: any) => x.device_id === id);
          return d && d.generation >= 2 ? d : undefined;
        },
        40_000,
      );
      expect(renewed.generation).toBeGreaterThanOrEqual(2);
      const grant = await popup.evaluate(`chrome.storage.local.get("remote_grant").then((v) => v.remote_grant)`);
      expect(grant.generation).toBe(renewed.generation);
      // The renewed secret is what links now: a session still runs on it.
      await popup.waitFor(`document.querySelector('li[data-link="remote"]')?.dataset.state === "connected"`, 15_000);
      const session = (await s2.ok(["session", "start", "--no-focus"])).session_id;
      await s2.ok(["session", "stop", session]);
      await forget();
    } finally {
      await s2.stop();
    }
  }, 90_000);

  test("expiry on a live link: the server closes it when the grant runs out, and the popup asks to pair again", async () => {
    const s4 = await startServer(rw.chain, { BSK_DEVICE_GRANT_MS: "4s", BSK_DEVICE_RENEW_MS: "1h" });
    try {
      await pairWith(s4);
      const expires = Date.parse((await s4.ok(["daemon", "devices"])).devices[0].expires_at);
      expect((await s4.ok(["daemon", "devices"])).devices[0].connected).toBe(true);
      await popup.waitFor(`document.querySelector('li[data-link="remote"]')?.dataset.state === "expired"`, 30_000);
      expect(Date.now()).toBeGreaterThanOrEqual(expires);
      expect(await popup.evaluate(`document.querySelector('li[data-link="remote"] .error').textContent`)).toContain("pair again");
      expect(await popup.evaluate(`document.querySelector('li[data-link="remote"] .error').dataset.reason`)).toBe("expired");
      expect((await s4.ok(["daemon", "devices"])).devices.filter((d: any) => d.connected)).toEqual([]);
      await forget();
    } finally {
      await s4.stop();
    }
  }, 90_000);

  test("expiry: a grant that ran out is refused when the browser dials again, and the popup asks to pair again", async () => {
    const s3 = await startServer(rw.chain, { BSK_DEVICE_GRANT_MS: "3s", BSK_DEVICE_RENEW_MS: "1h" });
    const place = { home: s3.home, port: s3.port };
    let again: Server | undefined;
    try {
      await pairWith(s3);
      const expires = Date.parse((await s3.ok(["daemon", "devices"])).devices[0].expires_at);
      await s3.stop(true);
      // The grant runs out by the clock while the server is down; nothing else can make it expire.
      while (Date.now() <= expires) await Bun.sleep(Math.max(1, expires - Date.now() + 1));
      again = await startServer(rw.chain, { BSK_DEVICE_GRANT_MS: "3s", BSK_DEVICE_RENEW_MS: "1h" }, place);
      await popup.waitFor(`document.querySelector('li[data-link="remote"]')?.dataset.state === "expired"`, 30_000);
      expect(await popup.evaluate(`document.querySelector('li[data-link="remote"] .error').textContent`)).toContain("pair again");
      expect(await popup.evaluate(`document.querySelector('li[data-link="remote"] .error').dataset.reason`)).toBe("expired");
      expect((await again.ok(["daemon", "devices"])).devices.filter((d: any) => d.connected)).toEqual([]);
      await forget();
    } finally {
      // The restarted server first: the home both ran on goes with the first one's stop.
      await again?.stop(true);
      await s3.stop();
    }
  }, 90_000);

  /** The extension's kept stream for one link (chrome.storage.session, ports/outbox.ts). */
  const stream = (link: string) => popup.evaluate(`chrome.storage.session.get("outbox:${link}").then((v) => v["outbox:${link}"] ?? null)`);
  const errorsOf = (evs: any[]) => evs.filter((e) => e.event === "console.error");
  const total = (evs: any[]) => errorsOf(evs).reduce((n, e) => n + (e.count ?? 1), 0);

  test("remote events: numbered and acknowledged on their own stream, kept while the server is down, sent once each when it is back; the local link flows meanwhile", async () => {
    let server4 = await startServer(rw.chain);
    const place = { home: server4.home, port: server4.port };
    const N = 300;
    try {
      await pairWith(server4);
      const rs = (await server4.ok(["session", "start", "--no-focus"])).session_id;
      const remoteEvents = async () => (await server4.ok(["events", "--session", rs, "--limit", "10000"])).events as any[];
      await server4.ok(["navigate", w.fixtures.url("/events.html?remote-events"), "--session", rs]);
      await server4.ok(["evaluate", "console.error('before')", "--session", rs]);
      await until("the remote error", async () => errorsOf(await remoteEvents()).some((e) => e.data.text === "before") || undefined);
      // The remote link's own numbered stream, acknowledged by the server: nothing of it is left to send.
      const acked = await until("the remote stream acknowledged", async () => {
        const r = await stream("remote");
        return r && r.next > 1 && r.sent.length === 0 && r.queued.length === 0 ? r : undefined;
      });
      expect(acked.stream).not.toBe((await stream("local")).stream);

      const ls = await w.startSession();
      await w.ok(["navigate", w.fixtures.url("/events.html?local-events"), "--session", ls]);
      // Killed: it ends no session on its way out, as a crash or a lost network would not.
      await server4.stop(true, "SIGKILL");
      await popup.waitFor(`document.querySelector('li[data-link="remote"]')?.dataset.state !== "connected"`, 15_000);
      // The page logs N errors while no server listens: the remote stream keeps them.
      expect(await evaluateInPage(w.browser.cdpPort!, "remote-events", `burst(${N}, 30, 10)`)).toBe(N);
      const held = await until("the errors held for the server", async () => {
        const r = await stream("remote");
        return r && r.queued.length + r.sent.length > 0 ? r : undefined;
      });
      expect(held.stream).toBe(acked.stream);
      // Meanwhile the local session's events flow on the local link.
      await w.ok(["evaluate", "console.error('local while the server is down')", "--session", ls]);
      const localErrors = await until("the local error", async () => {
        const evs = errorsOf((await w.ok(["events", "--session", ls, "--limit", "10000"])).events);
        return evs.length ? evs : undefined;
      });
      expect(localErrors.map((e: any) => e.data.text)).toEqual(["local while the server is down"]);
      await w.ok(["session", "stop", ls]);

      server4 = await startServer(rw.chain, {}, place);
      await popup.waitFor(`document.querySelector('li[data-link="remote"]')?.dataset.state === "connected"`, 40_000);
      const evs = await until(
        "every error after the server came back",
        async () => {
          const e = await remoteEvents();
          return total(e) >= N + 1 ? e : undefined;
        },
        20_000,
      );
      // In order, once each, nothing lost: each folded event's text is the last error it stands for.
      const errors = errorsOf(evs);
      expect(errors[0].data.text).toBe("before");
      let seen = 0;
      for (const e of errors.slice(1)) {
        seen += e.count ?? 1;
        expect(e.data.text).toBe(`e${seen - 1}`);
      }
      expect(seen).toBe(N);
      expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1));
      expect(evs.some((e) => e.event === "events.lost")).toBe(false);
      expect(errors.some((e) => e.data.text.startsWith("local"))).toBe(false);
      await until("the remote stream acknowledged again", async () => {
        const r = await stream("remote");
        return r.stream === acked.stream && r.sent.length === 0 && r.queued.length === 0 ? r : undefined;
      });

      // Forgetting the grant drops what its server never took: the next pairing starts a new stream.
      await server4.stop(true, "SIGKILL");
      await popup.waitFor(`document.querySelector('li[data-link="remote"]')?.dataset.state !== "connected"`, 15_000);
      await evaluateInPage(w.browser.cdpPort!, "remote-events", `console.error("never sent")`);
      await until("the unsent error held", async () => ((await stream("remote")).queued.length > 0 ? true : undefined));
      await forget();
      const dropped = await stream("remote");
      expect(dropped.stream).not.toBe(acked.stream);
      expect([dropped.sent, dropped.queued]).toEqual([[], []]);
    } finally {
      await server4.stop();
    }
  }, 150_000);

  test("the extension reloads during a remote session: the server hears why it ended (extension_reloaded), on the remote link", async () => {
    const server5 = await startServer(rw.chain);
    try {
      await pairWith(server5);
      const rs = (await server5.ok(["session", "start", "--no-focus"])).session_id;
      await server5.ok(["navigate", w.fixtures.url("/shop.html?remote-reload"), "--session", rs]);
      await onExtensionsPage(w, DEVELOPER_MODE);
      // The popup goes with the old instance; the stored grant dials the server again from the new one.
      await relinkedAfter(w, () => w.person.asExtension("(chrome.runtime.reload(), true)").catch(() => undefined));
      const ended = await until(
        "the remote session's end with its reason",
        async () => {
          const mine = (await server5.ok(["session", "list"])).sessions.find((x: any) => x.session_id === rs);
          return mine?.end_reason === "extension_reloaded" ? mine : undefined;
        },
        20_000,
      );
      expect(ended.state).toBe("ended");
      // The local daemon never heard of it.
      expect((await w.ok(["session", "list"])).sessions.map((x: any) => x.session_id)).not.toContain(rs);
      const tabs = await w.person.asExtension(`chrome.tabs.query({}).then((ts) => ts.map((t) => t.url))`);
      expect(tabs.some((u: string) => u.includes("remote-reload"))).toBe(false);
    } finally {
      await server5.stop();
    }
  }, 90_000);
});
