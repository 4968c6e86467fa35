/**
 * Trust both ways, in real Chromium with the real extension: the secret arrives through native messaging; a program
 * squatting the daemon's port gets nothing (no handshake details, no session data, no answer to its requests) and
 * the extension says it is untrusted; the real daemon is trusted again when it comes back; a new secret is fetched
 * again through native messaging; pairing by code through the popup works without native messaging.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PROTOCOL_VERSION } from "../../protocol/version.ts";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { startWorld, until, type World } from "./harness.ts";
import { evalInPage } from "./page-eval.ts";

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w.stop();
});

/** Evaluates in one of the extension's own pages (chrome.* is at hand there). */
const inExtension = (expression: string, marker = "/connect.html") => evalInPage(w.browser.cdpPort!, marker, expression);

/** The worker's connection state; undefined while the page is not ready (the extension may still be loading). */
const connection = () => inExtension("chrome.storage.session.get('connection').then((r) => r.connection)").catch(() => undefined);

async function daemonPid(): Promise<number> {
  return JSON.parse(readFileSync(join(w.home, "daemon.json"), "utf8")).pid;
}

/** A program on the daemon's port that records every frame, answers hello with a made-up proof and asks for data. */
function squat(port: number) {
  const frames: any[] = [];
  const hellos: (() => void)[] = [];
  let hellosSeen = 0;
  let closes = 0;
  const closed: (() => void)[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    fetch(req, srv) {
      return srv.upgrade(req) ? undefined : new Response("no", { status: 400 });
    },
    websocket: {
      open(ws) {
        // A squatter asks before anything else: the extension must not answer.
        ws.send(JSON.stringify({ id: "squat-1", method: "tab.list", params: { session_id: "whatever", scope: "all" } }));
        ws.send(JSON.stringify({ id: "squat-2", method: "session.open", params: { session_id: "zzzz", focus: false } }));
      },
      message(ws, text) {
        const frame = JSON.parse(String(text));
        frames.push(frame);
        if (frame.method === "system.hello") {
          const fake = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
          ws.send(
            JSON.stringify({
              id: frame.id,
              result: { server: "bsk-daemon", protocol_version: PROTOCOL_VERSION, nonce: fake, proof: fake },
            }),
          );
          ws.send(JSON.stringify({ id: "squat-3", method: "evaluate", params: { session_id: "whatever", expression: "document.cookie" } }));
          hellosSeen++;
          hellos.splice(0).forEach((f) => f());
        }
      },
      close() {
        closes++;
        closed.splice(0).forEach((f) => f());
      },
    },
  });
  return {
    frames,
    /** Resolves once `n` hellos and `n` closes happened. */
    async rounds(n: number): Promise<void> {
      while (hellosSeen < n) await new Promise<void>((r) => hellos.push(r));
      while (closes < n) await new Promise<void>((r) => closed.push(r));
    },
    stop: () => server.stop(true),
  };
}

describe("trust both ways", () => {
  test("the extension got this install's secret through native messaging and is connected with it", async () => {
    const manifest = JSON.parse(readFileSync(join(w.home, "profile/NativeMessagingHosts/com.bsk.bridge.json"), "utf8"));
    expect(manifest.allowed_origins).toEqual([`chrome-extension://${EXTENSION_ID}/`]);
    expect(existsSync(manifest.path)).toBe(true);
    const c = await until("the extension connected", async () => {
      const s = await connection();
      return s?.state === "connected" && s;
    });
    const status = await w.ok(["status"]);
    expect(c.key_id).toBe(status.daemon.key_id);
    expect(status.browsers).toHaveLength(1);
  });

  test("a fake daemon squatting the port gets nothing: no handshake, no session data, no replies; the extension says untrusted", async () => {
    const s = await w.startSession();
    const page = w.fixtures.url("/echo-title/secret-page");
    await w.ok(["navigate", page, "--session", s]);
    const { instance_id } = (await w.ok(["browsers"])).browsers[0];

    process.kill(await daemonPid(), "SIGKILL");
    await until("the daemon to be gone", async () => (await w.bsk(["daemon", "status"], { env: { BSK_AUTO_START: "0" } })).code !== 0);
    const fake = squat(w.port);
    try {
      await fake.rounds(2); // it keeps retrying, and keeps saying nothing
      const state = await connection();
      expect(state).toMatchObject({ state: "untrusted", port: w.port });
      expect(state.error).toContain("could not prove");

      const text = JSON.stringify(fake.frames);
      for (const f of fake.frames) {
        expect(f.method).toBe("system.hello");
        expect(Object.keys(f.params).sort()).toEqual(["nonce", "protocol_version"]);
      }
      for (const leak of [s, String(instance_id), "e2e", page, "secret-page", "squat-"]) expect(text).not.toContain(leak);
    } finally {
      fake.stop();
    }

    // The real daemon comes back on the port: trusted again, and the session is taken back.
    const started = await w.bsk(["daemon", "start", "--port", String(w.port)]);
    expect(started.code).toBe(0);
    await until("the extension connected again", async () => (await connection())?.state === "connected", 15_000);
    const tabs = await w.ok(["tab", "list", "--session", s]);
    expect(tabs.tabs.some((t: any) => t.url === page)).toBe(true);
    await w.ok(["session", "stop", s]);
  });

  test("a new secret (a fresh $BSK_HOME key) is fetched again through native messaging", async () => {
    const before = (await connection()).key_id;
    await w.ok(["daemon", "stop"]);
    rmSync(join(w.home, "trust.key"));
    await w.ok(["daemon", "start", "--port", String(w.port)]);
    const status = await w.ok(["status"]);
    expect(status.daemon.key_id).not.toBe(before);
    await until(
      "the extension connected with the new secret",
      async () => {
        const c = await connection();
        return c?.state === "connected" && c.key_id === status.daemon.key_id;
      },
      15_000,
    );
  });
});
