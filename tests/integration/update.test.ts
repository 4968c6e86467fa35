/**
 * bsk update, the daemon's periodic check and install.sh against a local release server. Two binaries are built
 * with build-time defines (a test release key; versions 0.1.0-test and 0.1.1-test); the old one is installed
 * into a temp dir with its own $BSK_HOME, port and daemon, and updated from releases signed in this test.
 * The local release server serves GitHub's releases layout, redirects included: each release is a repository's
 * releases at /bsk-dev/<name>/releases, whose latest/download/<file> redirects to download/v<version>/<file>, which
 * redirects to the asset host (/release-assets/<name>/<file>).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readUpdateState } from "../../shared/update-state.ts";
import { RELEASE_PUBLIC_KEY } from "../../protocol/release-key.ts";
import { assetName, assetUrl, currentPlatform, serializeManifest, type ReleaseManifest } from "../../protocol/release.ts";
import { PROTOCOL_VERSION } from "../../protocol/version.ts";
import { buildBinary } from "../../scripts/build.ts";
import { packBinary, publicKeyOf, sha256Hex, signBytes, writeRelease } from "../../scripts/release/pack.ts";
import { freePort, peakRss, ROOT } from "./harness.ts";
import { runProcess } from "../run.ts";
import { tempDir } from "../temp.ts";

const OLD = "0.1.0-test";
const NEW = "0.1.1-test";
/** Each case starts daemons and moves ~100 MB binaries around. */
const T = 30_000;
const platform = currentPlatform()!;
const work = tempDir("bsk-upd-");
const relDir = join(work, "rel");

function keyPair() {
  const { privateKey } = generateKeyPairSync("ed25519");
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return { pem, pub: publicKeyOf(pem) };
}
const key = keyPair();
const otherKey = keyPair();

let oldBin: string;
let newBin: string;
let server: ReturnType<typeof Bun.serve>;
let origin: string;
let goodManifest: ReleaseManifest;

/** The path of release `name`'s GitHub releases, like /bsk-dev/bsk/releases. */
const releases = (name: string) => `/bsk-dev/${name}/releases`;
/** Its base URL, as https://github.com/bsk-dev/bsk/releases. */
const base = (name: string) => `${origin}${releases(name)}`;
const manifestUrl = (release: string) => `${base(release)}/latest/download/version.json`;

/** Where GitHub sends a release's URLs: latest → the newest version's download → the asset host; else undefined. */
function githubRedirect(path: string): string | undefined {
  const latest = /^\/bsk-dev\/([\w-]+)\/releases\/latest\/download\/([^/]+)$/.exec(path);
  if (latest) {
    const manifest = join(relDir, latest[1]!, "version.json");
    if (!existsSync(manifest)) return undefined;
    return `${releases(latest[1]!)}/download/v${JSON.parse(readFileSync(manifest, "utf8")).version}/${latest[2]}`;
  }
  const download = /^\/bsk-dev\/([\w-]+)\/releases\/download\/v[^/]+\/([^/]+)$/.exec(path);
  return download ? `/release-assets/${download[1]}/${download[2]}` : undefined;
}

/** Every path the release server was asked for, in order. */
const requested: string[] = [];

/** The requests for release `name` since `from`, as GitHub would see them: manifest, signature, asset and their hops. */
function hops(name: string, from: number): string[] {
  return requested.slice(from).filter((p) => p.startsWith(releases(name)) || p.startsWith(`/release-assets/${name}/`));
}

/** A release directory, served at GitHub's URLs for /bsk-dev/<name>/releases. */
function publish(name: string, manifest: ReleaseManifest, files: Record<string, Uint8Array>, signWith = key.pem): void {
  const dir = join(relDir, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, bytes] of Object.entries(files)) writeFileSync(join(dir, file), bytes);
  const bytes = new TextEncoder().encode(serializeManifest(manifest));
  writeFileSync(join(dir, "version.json"), bytes);
  writeFileSync(join(dir, "version.json.sig"), `${signBytes(bytes, signWith)}\n`);
  const sums = Object.entries(manifest.assets).map(([p, a]) => `${a!.sha256 ?? "-"}  ${assetName(manifest.version, p as typeof platform)}`);
  writeFileSync(join(dir, "SHA256SUMS"), `${sums.join("\n")}\n`);
}

/** A release of `archive` named `name` (its manifest says what `edit` makes of it, and has `fields` over the good one's). */
function variant(
  name: string,
  archive: Uint8Array,
  edit: (a: { url: string; sha256?: string; size?: number }) => void = () => {},
  signWith = key.pem,
  fields: Partial<ReleaseManifest> = {},
) {
  const file = assetName(NEW, platform);
  const asset = { url: assetUrl(base(name), NEW, file), sha256: sha256Hex(archive), size: archive.length };
  edit(asset);
  publish(name, { ...goodManifest, ...fields, assets: { [platform]: asset } }, { [file]: archive }, signWith);
}

const DAY_MS = 86_400_000;

/** Bodies that never end, one per request: how much each sent before the reader hung up. */
interface Endless {
  path: string;
  sent: number;
  cancelled: Promise<void>;
}
const endlessServed: Endless[] = [];
/** /<release>/…/<file> answered with an endless body (a 3 GB manifest, say) instead of the file. */
const endlessRoutes = new Set<string>();

function endless(path: string): Response {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const { promise, resolve } = Promise.withResolvers<void>();
  const e: Endless = { path, sent: 0, cancelled: promise };
  endlessServed.push(e);
  const body = new ReadableStream({
    pull(c) {
      e.sent += chunk.length;
      c.enqueue(chunk);
    },
    cancel: () => resolve(),
  });
  return new Response(body);
}

beforeAll(async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      requested.push(path);
      if (endlessRoutes.has(path)) return endless(path);
      const to = githubRedirect(path);
      if (to) return new Response(null, { status: 302, headers: { location: `${origin}${to}` } });
      const m = /^\/release-assets\/([\w-]+)\/([^/]+)$/.exec(path);
      const file = m ? Bun.file(join(relDir, m[1]!, m[2]!)) : undefined;
      return file && (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;

  const build = join(work, "build");
  oldBin = join(build, "old/bsk");
  newBin = join(build, "new/bsk");
  await Promise.all([
    buildBinary(undefined, oldBin, { BUILD_APP_VERSION: OLD, BUILD_RELEASE_PUBKEY: key.pub }),
    buildBinary(undefined, newBin, { BUILD_APP_VERSION: NEW, BUILD_RELEASE_PUBKEY: key.pub }),
  ]);

  // The good release goes through the real packaging; the bad ones are variants of it.
  const good = writeRelease({
    outDir: join(relDir, "good"),
    version: NEW,
    protocolVersion: PROTOCOL_VERSION,
    baseUrl: base("good"),
    binaries: { [platform]: newBin },
    privateKeyPem: key.pem,
    level: 1,
  });
  goodManifest = good.manifest;
  const archive = new Uint8Array(readFileSync(join(relDir, "good", assetName(NEW, platform))));

  const tampered = archive.slice();
  tampered[tampered.length >> 1]! ^= 0xff;
  variant("tampered", tampered, (a) => {
    a.sha256 = sha256Hex(archive);
  });
  variant("nochecksum", archive, (a) => {
    delete a.sha256;
  });
  variant("otherkey", archive, () => {}, otherKey.pem);
  // A "new bsk" that reports the expected version but whose daemon never starts.
  const fake = new TextEncoder().encode(
    `#!/bin/sh\ncase "$1" in version) echo '{"ok":true,"result":{"version":"${NEW}","protocol_version":"${PROTOCOL_VERSION}"}}'; exit 0;; esac\necho "no daemon here" >&2\nexit 1\n`,
  );
  variant("nodaemon", packBinary(fake, platform, 1));
  // A freeze: the good release, signed by the right key, served by a mirror two days past its expiry.
  variant("expired", archive, () => {}, key.pem, { expires_at: new Date(Date.now() - 2 * DAY_MS).toISOString() });
  // A rollback: signed and unexpired, but older (a lower serial) than the good release's manifest.
  variant("rollback", archive, () => {}, key.pem, { serial: goodManifest.serial - 1 });

  // Hostile hosts: a manifest, a signature or an archive that never ends.
  for (const name of ["bigmanifest", "bigsig", "bigarchive"]) variant(name, archive);
  endlessRoutes.add(`${releases("bigmanifest")}/latest/download/version.json`);
  endlessRoutes.add(`${releases("bigsig")}/latest/download/version.json.sig`);
  endlessRoutes.add(`${releases("bigarchive")}/download/v${NEW}/${assetName(NEW, platform)}`);
}, 120_000);

afterAll(() => {
  server?.stop(true);
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------- an installed old bsk

interface Installed {
  dir: string;
  bin: string;
  home: string;
  env: Record<string, string>;
  run(args: string[], extraEnv?: Record<string, string>): Promise<{ code: number; json: any; stdout: string; stderr: string }>;
}

const installs: Installed[] = [];

async function install(extraEnv: Record<string, string> = {}): Promise<Installed> {
  const dir = mkdtempSync(join(work, "i-"));
  const bin = join(dir, "bin/bsk");
  mkdirSync(join(dir, "bin"));
  copyFileSync(oldBin, bin);
  chmodSync(bin, 0o755);
  const home = join(dir, "h");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    BSK_HOME: home,
    BSK_PORT: String(await freePort()),
    BSK_AUTO_UPDATE: "off",
    BSK_NATIVE_HOST: "off",
    BSK_UPDATE_SERVE_TIMEOUT_MS: "10000",
    ...extraEnv,
  };
  const inst: Installed = {
    dir,
    bin,
    home,
    env,
    run(args, more = {}) {
      return runProcess([bin, ...args], { env: { ...env, ...more } });
    },
  };
  installs.push(inst);
  return inst;
}

async function daemonStatus(i: Installed): Promise<{ pid: number; version: string }> {
  const r = await i.run(["daemon", "status", "--json"]);
  expect(r.json?.ok).toBe(true);
  return r.json.result.daemon;
}

const fileHash = (path: string) => sha256Hex(new Uint8Array(readFileSync(path)));
const oldHash = () => fileHash(oldBin);

function leftovers(i: Installed): string[] {
  return readdirSync(join(i.dir, "bin")).filter((f) => f !== "bsk" && f !== "bsk.previous");
}

/** Wait for a condition; the deadline is a failure, not a sleep. */
async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 20_000, detail = () => ""): Promise<T> {
  const deadline = Date.now() + ms;
  for (let delay = 10; ; delay = Math.min(delay * 2, 100)) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${detail()}`);
    await Bun.sleep(delay);
  }
}

afterEach(async () => {
  endlessServed.length = 0;
  for (const i of installs.splice(0)) {
    await i.run(["daemon", "stop"]);
    rmSync(i.dir, { recursive: true, force: true });
  }
});

/** A live session in the registry: the daemon keeps it live while it waits for its browser to come back. */
function writeLiveSession(home: string): void {
  mkdirSync(join(home, "state"), { recursive: true, mode: 0o700 });
  const now = new Date().toISOString();
  const s = {
    session_id: "upds",
    browser_instance_id: "b-test",
    state: "live",
    window_id: 1,
    current_tab_id: null,
    created_at: now,
    last_used_at: now,
  };
  writeFileSync(join(home, "state/sessions.json"), JSON.stringify({ version: 1, issued_ids: ["upds"], sessions: [s], ended: [] }), {
    mode: 0o600,
  });
}

// ---------------------------------------------------------------- bsk update

describe("bsk update", () => {
  test("test binaries trust the test key, not the built-in one", () => {
    expect(key.pub).not.toBe(RELEASE_PUBLIC_KEY);
  });

  test(
    "a good release: binary swapped, previous kept, daemon restarted on the new version",
    async () => {
      const i = await install();
      expect((await i.run(["daemon", "start", "--json"])).code).toBe(0);
      const before = await daemonStatus(i);
      expect(before.version).toBe(OLD);

      const from = requested.length;
      const r = await i.run(["update", "--yes", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("good") });
      expect(r.json).toMatchObject({
        ok: true,
        result: { updated: true, current: OLD, latest: NEW, daemon: { restarted: true, version: NEW } },
      });
      expect(r.stderr).toBe("");
      // GitHub's hops, followed: latest → the version's download → the asset host (manifest and signature in parallel).
      const asset = assetName(NEW, platform);
      expect(hops("good", from).sort()).toEqual(
        [
          `${releases("good")}/latest/download/version.json`,
          `${releases("good")}/download/v${NEW}/version.json`,
          "/release-assets/good/version.json",
          `${releases("good")}/latest/download/version.json.sig`,
          `${releases("good")}/download/v${NEW}/version.json.sig`,
          "/release-assets/good/version.json.sig",
          `${releases("good")}/download/v${NEW}/${asset}`,
          `/release-assets/good/${asset}`,
        ].sort(),
      );

      expect((await i.run(["version", "--json"])).json.result.version).toBe(NEW);
      const after = await daemonStatus(i);
      expect(after.version).toBe(NEW);
      expect(after.pid).not.toBe(before.pid);
      expect(r.json.result.daemon.pid).toBe(after.pid);
      expect(fileHash(`${i.bin}.previous`)).toBe(oldHash());
      expect(leftovers(i)).toEqual([]);
      expect(readUpdateState(i.home)).toMatchObject({ state: "updated", latest: NEW });

      // Now current: nothing to do.
      const again = await i.run(["update", "--yes", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("good") });
      expect(again.json.result).toMatchObject({ updated: false, update_available: false, current: NEW });
    },
    T,
  );

  test(
    "with no daemon running, the new one is started only to prove it, then stopped",
    async () => {
      const i = await install();
      const r = await i.run(["update", "--yes", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("good") });
      expect(r.json).toMatchObject({
        ok: true,
        result: { updated: true, latest: NEW, daemon: { restarted: false, pid: null, version: NEW } },
      });
      expect((await i.run(["daemon", "status", "--json"])).json?.error?.data?.reason).toBe("daemon_not_running");
      expect((await i.run(["version", "--json"])).json.result.version).toBe(NEW);
    },
    T,
  );

  test(
    "--check reports the newer release and changes nothing",
    async () => {
      const i = await install();
      await i.run(["daemon", "start"]);
      const before = await daemonStatus(i);
      const r = await i.run(["update", "--check", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("good") });
      expect(r.json).toMatchObject({ ok: true, result: { update_available: true, updated: false, current: OLD, latest: NEW } });
      const human = await i.run(["update", "--check"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("good") });
      expect(human.stdout).toContain(`bsk ${NEW} is available`);
      expect(fileHash(i.bin)).toBe(oldHash());
      expect((await daemonStatus(i)).pid).toBe(before.pid);
      expect(existsSync(join(i.home, "update-state.json"))).toBe(false);
    },
    T,
  );

  const refusals: [string, string, string][] = [
    ["a tampered archive", "tampered", "permission_denied/checksum_mismatch"],
    ["a release without a checksum", "nochecksum", "invalid_params/missing_checksum"],
    ["a manifest signed by another key", "otherkey", "permission_denied/bad_signature"],
    ["an expired manifest (a mirror freezing bsk on an old release)", "expired", "permission_denied/manifest_expired"],
  ];
  for (const [what, release, expected] of refusals) {
    test(
      `${what} is refused: binary and daemon untouched`,
      async () => {
        const i = await install();
        await i.run(["daemon", "start"]);
        const before = await daemonStatus(i);
        const r = await i.run(["update", "--yes", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl(release) });
        expect(r.code).toBe(1);
        expect(`${r.json?.error?.code}/${r.json?.error?.data?.reason}`).toBe(expected);
        expect(fileHash(i.bin)).toBe(oldHash());
        expect(existsSync(`${i.bin}.previous`)).toBe(false);
        expect(leftovers(i)).toEqual([]);
        expect(await daemonStatus(i)).toMatchObject({ pid: before.pid, version: OLD });
      },
      T,
    );
  }

  test(
    "an expired manifest: --check refuses it too, saying when it expired and that the clock may be wrong",
    async () => {
      const i = await install();
      const r = await i.run(["update", "--check", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("expired") });
      expect(r.code).toBe(1);
      expect(r.json?.error).toMatchObject({ code: "permission_denied", data: { reason: "manifest_expired" } });
      expect(r.json.error.message).toContain(`the release manifest at ${manifestUrl("expired")} expired at `);
      expect(r.json.error.hint).toContain("clock");
      expect(r.json.error.hint).toContain("Nothing was installed");
      expect(fileHash(i.bin)).toBe(oldHash());
    },
    T,
  );

  test(
    "a rollback to an older signed manifest than one already seen is refused: binary and daemon untouched",
    async () => {
      const i = await install();
      await i.run(["daemon", "start"]);
      const before = await daemonStatus(i);
      // The good release's manifest is seen (and its serial kept in $BSK_HOME)...
      const seen = await i.run(["update", "--check", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("good") });
      expect(seen.json?.result).toMatchObject({ update_available: true, latest: NEW });
      // ...then the host serves an older one, still signed and unexpired.
      const r = await i.run(["update", "--yes", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("rollback") });
      expect(r.code).toBe(1);
      expect(r.json?.error).toMatchObject({
        code: "permission_denied",
        data: { reason: "manifest_rollback", serial: goodManifest.serial - 1, newest_seen: goodManifest.serial },
      });
      expect(r.json.error.hint).toContain("Nothing was installed");
      expect(fileHash(i.bin)).toBe(oldHash());
      expect(existsSync(`${i.bin}.previous`)).toBe(false);
      expect(leftovers(i)).toEqual([]);
      expect(await daemonStatus(i)).toMatchObject({ pid: before.pid, version: OLD });
      // The newer manifest is still accepted.
      const check = await i.run(["update", "--check", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("good") });
      expect(check.json?.ok).toBe(true);
    },
    T,
  );

  test(
    "a release whose daemon does not start is rolled back: old binary, old daemon serving",
    async () => {
      const i = await install();
      await i.run(["daemon", "start"]);
      const before = await daemonStatus(i);
      const r = await i.run(["update", "--yes", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("nodaemon") });
      expect(r.json?.error).toMatchObject({ code: "unsupported", data: { reason: "update_rolled_back" } });
      expect(r.json.error.message).toContain(`the previous daemon (${OLD}) serves again`);
      expect(fileHash(i.bin)).toBe(oldHash());
      expect(leftovers(i)).toEqual([]);
      const after = await daemonStatus(i);
      expect(after.version).toBe(OLD);
      expect(after.pid).not.toBe(before.pid);
      expect(readUpdateState(i.home)).toMatchObject({ state: "failed", latest: NEW });
    },
    T,
  );

  test(
    "deferred while a session is live, even with --yes",
    async () => {
      const i = await install({ BSK_READOPT_WAIT_MS: "60000" });
      writeLiveSession(i.home);
      await i.run(["daemon", "start"]);
      const before = await daemonStatus(i);
      const r = await i.run(["update", "--yes", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("good") });
      expect(r.json?.error).toMatchObject({ code: "unsupported", data: { reason: "sessions_live", sessions: ["upds"] } });
      expect(r.json.error.hint).toContain("--yes does not skip this");
      expect(fileHash(i.bin)).toBe(oldHash());
      expect((await daemonStatus(i)).pid).toBe(before.pid);
      expect(readUpdateState(i.home)).toMatchObject({ state: "deferred", latest: NEW });
      // bsk status says an update is waiting.
      const status = await i.run(["status"]);
      expect(status.stdout).toContain(`update: bsk ${NEW} is available (waits for the sessions to end)`);
    },
    T,
  );

  test(
    "without --yes and without a terminal it asks for --yes",
    async () => {
      const i = await install();
      const r = await i.run(["update", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("good") });
      expect(r.json?.error).toMatchObject({ code: "invalid_params", data: { reason: "confirmation_required" } });
      expect(fileHash(i.bin)).toBe(oldHash());
    },
    T,
  );

  test(
    "from source (bun cli/main.ts) it is unsupported, with a hint",
    async () => {
      const proc = Bun.spawn([process.execPath, join(ROOT, "cli/main.ts"), "update", "--yes", "--json"], {
        env: { ...process.env, BSK_HOME: join(work, "src-home"), BSK_UPDATE_MANIFEST_URL: manifestUrl("good"), BSK_AUTO_START: "0" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const out = JSON.parse(await new Response(proc.stdout).text());
      expect(await proc.exited).toBe(1);
      expect(out.error).toMatchObject({ code: "unsupported", data: { reason: "not_installed_binary" } });
      expect(out.error.hint).toContain("git pull && npm run build");
    },
    T,
  );
});

// ---------------------------------------------------------------- the daemon's periodic check

describe("the daemon's periodic check", () => {
  test("a background daemon finds the release, waits for the live session to end, then installs it", async () => {
    const i = await install({
      BSK_AUTO_UPDATE: "ON",
      BSK_UPDATE_INTERVAL_MS: "100",
      BSK_UPDATE_MANIFEST_URL: manifestUrl("good"),
      BSK_READOPT_WAIT_MS: "1500",
    });
    writeLiveSession(i.home);
    await i.run(["daemon", "start"]);
    const before = await daemonStatus(i);
    await until("the check to defer the update", () => (readUpdateState(i.home)?.state === "deferred" ? true : undefined));
    expect(fileHash(i.bin)).toBe(oldHash());
    // The session ends (its browser never comes back); the update goes in.
    const log = () => readFileSync(join(i.home, "logs/daemon.log"), "utf8").split("\n").slice(-30).join("\n");
    // A guard, not a pace: on a loaded machine the download, swap and restart of a ~100 MB binary take a while.
    // The new daemon's own first check may already have recorded it as current.
    const installed = () => {
      const s = readUpdateState(i.home);
      return s?.state === "updated" || (s?.state === "current" && s.current === NEW) ? true : undefined;
    };
    await until("the update", installed, 60_000, log);
    expect((await i.run(["version", "--json"])).json.result.version).toBe(NEW);
    const after = await until("the new daemon", async () => {
      const r = await i.run(["daemon", "status", "--json"]);
      return r.json?.result?.daemon?.version === NEW ? r.json.result.daemon : undefined;
    });
    expect(after.pid).not.toBe(before.pid);
  }, 90_000);

  test(
    "an expired manifest: the check installs nothing, records why, and bsk status and bsk doctor say so",
    async () => {
      const i = await install({ BSK_AUTO_UPDATE: "ON", BSK_UPDATE_INTERVAL_MS: "100", BSK_UPDATE_MANIFEST_URL: manifestUrl("expired") });
      await i.run(["daemon", "start"]);
      const { pid } = await daemonStatus(i);
      const state = await until("the check to fail", () => {
        const s = readUpdateState(i.home);
        return s?.state === "failed" ? s : undefined;
      });
      expect(state).toMatchObject({ reason: "manifest_expired" });
      expect(state.error).toContain("expired at");
      expect(fileHash(i.bin)).toBe(oldHash());
      expect((await daemonStatus(i)).pid).toBe(pid);
      const status = await i.run(["status"]);
      expect(status.stdout).toContain("update: the last check was refused: the release manifest at");
      const doctor = await i.run(["doctor", "--json"], { BSK_DOCTOR_BROWSER_WAIT_MS: "1" });
      const check = (JSON.parse(doctor.stdout).checks as { name: string; status: string; detail: string; hint?: string }[]).find(
        (c) => c.name === "updates",
      );
      expect(check).toMatchObject({ status: "warn" });
      expect(check!.detail).toContain("expired at");
      expect(check!.hint).toContain("clock");
    },
    T,
  );

  test(
    "BSK_AUTO_UPDATE=off: no check at all",
    async () => {
      const i = await install({ BSK_AUTO_UPDATE: "Off", BSK_UPDATE_INTERVAL_MS: "10", BSK_UPDATE_MANIFEST_URL: manifestUrl("good") });
      await i.run(["daemon", "start"]);
      await daemonStatus(i);
      const log = () => readFileSync(join(i.home, "logs/daemon.log"), "utf8");
      await until("the daemon's start in its log", () => (log().includes("daemon started") ? true : undefined));
      expect(existsSync(join(i.home, "update-state.json"))).toBe(false);
      expect(fileHash(i.bin)).toBe(oldHash());
    },
    T,
  );
});

// ---------------------------------------------------------------- hostile release hosts

/** Loopback and Bun's stream buffers hold a few MB past what the reader took; an uncapped read never ends. */
const SERVED_SLACK = 16 * 1024 * 1024;

/** The endless bodies served at `path`, once each reader has hung up. */
async function served(path: string): Promise<Endless[]> {
  const bodies = endlessServed.filter((e) => e.path === path);
  await Promise.all(bodies.map((e) => e.cancelled));
  return bodies;
}

describe("a hostile release host: every body is cut at its cap while it streams", () => {
  for (const [what, release, file, max] of [
    ["release manifest", "bigmanifest", "version.json", 1 << 20],
    ["release signature", "bigsig", "version.json.sig", 4096],
  ] as const) {
    test(
      `an endless ${what}: bsk update --check stops reading it and names it`,
      async () => {
        const i = await install();
        const r = await i.run(["update", "--check", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl(release) });
        expect(r.code).toBe(1);
        expect(r.json?.error).toMatchObject({ code: "unsupported", data: { reason: "response_too_large", what, max_bytes: max } });
        expect(r.json.error.message).toContain(`the ${what} at ${base(release)}/latest/download/${file} is larger than`);
        const bodies = await served(`${releases(release)}/latest/download/${file}`);
        expect(bodies.length).toBe(1);
        expect(bodies[0]!.sent).toBeLessThan(max + SERVED_SLACK);
      },
      T,
    );
  }

  test(
    "an endless archive: bsk update stops at the size the manifest signed and installs nothing",
    async () => {
      const i = await install();
      await i.run(["daemon", "start"]);
      const before = await daemonStatus(i);
      const r = await i.run(["update", "--yes", "--json"], { BSK_UPDATE_MANIFEST_URL: manifestUrl("bigarchive") });
      expect(r.code).toBe(1);
      expect(r.json?.error).toMatchObject({ code: "permission_denied", data: { reason: "checksum_mismatch", what: "release archive" } });
      expect(r.json.error.message).toContain("is larger than the release manifest says");
      const size = goodManifest.assets[platform]!.size!;
      const bodies = await served(`${releases("bigarchive")}/download/v${NEW}/${assetName(NEW, platform)}`);
      expect(bodies.length).toBe(1);
      expect(bodies[0]!.sent).toBeLessThan(size + SERVED_SLACK);
      expect(fileHash(i.bin)).toBe(oldHash());
      expect(leftovers(i)).toEqual([]);
      expect(await daemonStatus(i)).toMatchObject({ pid: before.pid, version: OLD });
    },
    T,
  );

  test(
    "an endless manifest: the daemon's periodic check stops reading it, records why, and stays small",
    async () => {
      const i = await install({
        BSK_AUTO_UPDATE: "ON",
        BSK_UPDATE_INTERVAL_MS: "1000",
        BSK_UPDATE_MANIFEST_URL: manifestUrl("bigmanifest"),
      });
      await i.run(["daemon", "start"]);
      const { pid } = await daemonStatus(i);
      const state = await until("the check to fail", () => {
        const s = readUpdateState(i.home);
        return s?.state === "failed" ? s : undefined;
      });
      expect(state.error).toContain(`the release manifest at ${manifestUrl("bigmanifest")} is larger than 1 MiB`);
      const bodies = await served(`${releases("bigmanifest")}/latest/download/version.json`);
      expect(bodies.length).toBeGreaterThan(0);
      for (const b of bodies) expect(b.sent).toBeLessThan((1 << 20) + SERVED_SLACK);
      // Reading the whole body before capping it grew a daemon past 4 GB; capped while it streams it stays near its baseline.
      expect(peakRss(pid)).toBeLessThan(256 * 1024 * 1024);
    },
    T,
  );
});

// ---------------------------------------------------------------- install.sh

describe("bsk doctor --fix and a daemon that is not this bsk's", () => {
  /** This bsk (NEW) runs doctor --fix in the old install's home, where the old bsk's daemon runs. */
  async function doctorFix(i: Installed) {
    const { stdout, stderr } = await runProcess([newBin, "doctor", "--fix", "--json"], {
      env: { ...i.env, BSK_DOCTOR_BROWSER_WAIT_MS: "1" },
    });
    const checks: { name: string; detail: string }[] = JSON.parse(stdout).checks;
    const daemon = checks.find((c) => c.name === "daemon");
    return { stderr, daemon };
  }

  test(
    "another version with no live session: said, then restarted as this version",
    async () => {
      const i = await install();
      expect((await i.run(["daemon", "start"])).code).toBe(0);
      const before = await daemonStatus(i);
      expect(before.version).toBe(OLD);
      const { stderr, daemon } = await doctorFix(i);
      expect(stderr).toContain(`fixing: restarting the daemon (bsk ${OLD}) so it runs this bsk ${NEW}`);
      expect(daemon?.detail).toContain(`bsk ${NEW}`);
      expect(daemon?.detail).toContain("(restarted)");
      const after = await daemonStatus(i);
      expect(after.version).toBe(NEW);
      expect(after.pid).not.toBe(before.pid);
    },
    T,
  );

  test(
    "a daemon that does not answer (stopped with SIGSTOP): said, killed and replaced",
    async () => {
      const i = await install();
      expect((await i.run(["daemon", "start"])).code).toBe(0);
      const before = await daemonStatus(i);
      process.kill(before.pid, "SIGSTOP");
      try {
        const { stderr, daemon } = await doctorFix(i);
        expect(stderr).toContain("fixing: restarting the daemon, which does not answer");
        expect(daemon?.detail).toContain("(restarted)");
      } finally {
        try {
          process.kill(before.pid, "SIGCONT");
        } catch {
          // killed by doctor --fix, as it should be
        }
      }
      const after = await daemonStatus(i);
      expect(after.version).toBe(NEW);
      expect(after.pid).not.toBe(before.pid);
    },
    T,
  );
});

describe("install.sh", () => {
  function installer(): string {
    const path = join(work, "install.sh");
    const text = readFileSync(join(ROOT, "install.sh"), "utf8").replace(
      `release_pubkey="${RELEASE_PUBLIC_KEY}"`,
      `release_pubkey="${key.pub}"`,
    );
    writeFileSync(path, text);
    return path;
  }

  async function runInstaller(release: string, extraEnv: Record<string, string> = {}, dir = mkdtempSync(join(work, "sh-"))) {
    const proc = Bun.spawn(["sh", installer()], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: dir,
        BSK_RELEASE_BASE_URL: base(release),
        BSK_INSTALL_DIR: join(dir, "bin"),
        ...extraEnv,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { dir, bin: join(dir, "bin/bsk"), stdout, stderr, code };
  }

  test(
    "installs the verified binary and prints the next steps",
    async () => {
      const r = await runInstaller("good");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`installed bsk ${NEW} to ${r.bin} (SHA-256 verified, signature verified)`);
      expect(r.stdout).toContain("Load unpacked");
      expect(r.stdout).toContain("bsk install-skill");
      const v = Bun.spawnSync([r.bin, "version"]).stdout.toString();
      expect(v).toContain(NEW);
    },
    T,
  );

  for (const [what, release, message] of [
    ["a tampered archive", "tampered", "SHA-256 mismatch"],
    ["a manifest signed by another key", "otherkey", "not signed by the bsk release key"],
    ["a release without a checksum", "nochecksum", "names no SHA-256"],
    ["an expired manifest (a frozen mirror)", "expired", "the release manifest expired at"],
  ]) {
    test(
      `refuses ${what} and installs nothing`,
      async () => {
        const r = await runInstaller(release!);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toContain(message!);
        expect(existsSync(r.bin)).toBe(false);
      },
      T,
    );
  }

  for (const [what, release, file] of [
    ["release manifest", "bigmanifest", "latest/download/version.json"],
    ["release signature", "bigsig", "latest/download/version.json.sig"],
    ["release archive", "bigarchive", `download/v${NEW}/${assetName(NEW, platform)}`],
  ] as const) {
    test(
      `stops reading an endless ${what}, names it and installs nothing`,
      async () => {
        const r = await runInstaller(release);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toContain(`error: the ${what} at ${base(release)}/${file} is larger than`);
        expect(existsSync(r.bin)).toBe(false);
        const bodies = await served(`${releases(release)}/${file}`);
        expect(bodies.length).toBe(1);
        expect(bodies[0]!.sent).toBeLessThan((release === "bigarchive" ? goodManifest.assets[platform]!.size! : 1 << 20) + SERVED_SLACK);
      },
      T,
    );
  }

  test(
    "an expired manifest named by BSK_VERSION (an old release asked for) installs, and says it expired",
    async () => {
      const r = await runInstaller("expired", { BSK_VERSION: NEW });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("note: the manifest of release");
      expect(r.stdout).toContain("expired at");
      expect(existsSync(r.bin)).toBe(true);
    },
    T,
  );

  test(
    "refuses a manifest older than the newest this install's bsk has seen, and installs nothing",
    async () => {
      const dir = mkdtempSync(join(work, "sh-"));
      const home = join(dir, ".bsk");
      mkdirSync(home, { recursive: true });
      writeFileSync(
        join(home, "release-seen.json"),
        `${JSON.stringify({ serial: goodManifest.serial, seen_at: new Date().toISOString() })}\n`,
      );
      const r = await runInstaller("rollback", {}, dir);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`older (serial ${goodManifest.serial - 1}) than one bsk has already seen (serial ${goodManifest.serial})`);
      expect(existsSync(r.bin)).toBe(false);
      // The newer one installs.
      const good = await runInstaller("good", {}, dir);
      expect(good.code).toBe(0);
    },
    T,
  );
});
