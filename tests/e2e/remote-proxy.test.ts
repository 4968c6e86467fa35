/**
 * Remote mode once behind a real reverse proxy, in real Chromium: the server-mode daemon listens without a
 * certificate on loopback, and the distribution's nginx — configured with the exact block docs/remote.md shows —
 * terminates TLS (a certificate from the CA the test made, trusted by the browser's own NSS database) and forwards
 * `/extension` and `/extension/authorize`. The person pairs through the popup; the server-side agent starts a session,
 * snapshots, clicks, uploads and downloads; revoke closes the link within a second. nginx's log holds no secret.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nginx } from "../tls/nginx.ts";
import { certutil, startRemoteWorld, type RemoteWorld } from "./remote-world.ts";
import { tempDir } from "../temp.ts";

const missing = !certutil ? "certutil (libnss3-tools)" : !nginx ? "nginx" : undefined;
if (missing) console.log(`remote-proxy.test.ts skipped: ${missing} is missing`);
const maybe = missing ? describe.skip : describe;

let rw: RemoteWorld;
let agentDir: string;

maybe("remote mode behind nginx (docs/remote.md's configuration)", () => {
  beforeAll(async () => {
    rw = await startRemoteWorld({ proxy: true });
    agentDir = tempDir("bsk-e2e-agent-");
  }, 120_000);

  afterAll(async () => {
    await rw?.stop();
    if (agentDir) rmSync(agentDir, { recursive: true, force: true });
  });

  test("pair through the popup, then session, snapshot, click, upload, download and revoke, all through nginx", async () => {
    const { server, w, popup } = rw;
    const deviceId = await rw.pairWith(server);
    const sid = (await server.ok(["session", "start", "--no-focus", "--device", deviceId])).session_id as string;
    const ok = (args: string[]) => server.ok([...args, "--session", sid]);

    await ok(["navigate", w.fixtures.url("/shop.html")]);
    const snap = await ok(["snapshot"]);
    const ref = (snap.text as string)
      .split("\n")
      .find((l) => /button|link/.test(l) && /@e\d+/.test(l))
      ?.match(/@e\d+/)?.[0];
    expect(ref).toBeDefined();
    expect(await ok(["click", ref!])).toMatchObject({ effect: expect.any(Object) });

    await ok(["navigate", w.fixtures.url("/files-upload.html")]);
    const file = join(agentDir, "cv.txt");
    writeFileSync(file, "through the proxy\n");
    expect(await ok(["upload", "#single", "--file", file])).toMatchObject({ via: "page", effect_state: "committed" });
    expect((await ok(["evaluate", "window.settled()"])).value.single).toEqual([expect.objectContaining({ name: "cv.txt", size: 18 })]);

    await ok(["navigate", w.fixtures.url("/files-download.html")]);
    const out = join(agentDir, "notes.txt");
    const got = await ok(["download", "#small", "--out", out]);
    expect(got).toMatchObject({ path: out, size: 13, effect_state: "committed" });
    expect(new Bun.CryptoHasher("sha256").update(readFileSync(out)).digest("hex")).toBe(got.sha256);

    const started = Date.now();
    await server.ok(["daemon", "revoke", deviceId]);
    await popup.waitFor(`document.querySelector('li[data-link="remote"]')?.dataset.state === "revoked"`, 5_000);
    expect(Date.now() - started).toBeLessThan(2_000);

    // Both ways went through nginx; neither the pairing code nor anything of the grant is in its log.
    const log = server.proxy!.accessLog();
    expect(log).toContain("POST /extension/authorize");
    expect(log).toContain("GET /extension");
    const grant = (await popup.evaluate(`chrome.storage.local.get("remote_grant").then((v) => v.remote_grant ?? null)`)) as {
      secret?: string;
    } | null;
    if (grant?.secret) expect(log).not.toContain(grant.secret);
    expect(log).not.toMatch(/[?&]code=/);
    await rw.forget();
  }, 120_000);
});
