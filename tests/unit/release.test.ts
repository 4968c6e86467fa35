import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fromTarGz, fromZip } from "../../cli/update/extract.ts";
import { RELEASE_PUBLIC_KEY } from "../../protocol/release-key.ts";
import type { BskError } from "../../protocol/errors.ts";
import {
  installedByNpm,
  assetName,
  assetUrl,
  checkFreshness,
  compareVersions,
  currentPlatform,
  parseManifest,
  GITHUB_RELEASES_URL,
  latestManifestUrl,
  MANIFEST_CLOCK_SKEW_MS,
  RELEASE_BASE_URL,
  REPOSITORY,
  resolveAssetUrl,
  serializeManifest,
  verifySignature,
  type ReleaseManifest,
} from "../../protocol/release.ts";
import { tarGz, zip } from "../../scripts/release/archive.ts";
import { publicKeyOf, signBytes, signingFreshness } from "../../scripts/release/pack.ts";
import { tempDir } from "../temp.ts";

const root = join(import.meta.dir, "../..");

function keyPair() {
  const { privateKey } = generateKeyPairSync("ed25519");
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return { pem, pub: publicKeyOf(pem) };
}

describe("versions", () => {
  test("semver order, pre-releases below their release", () => {
    const ordered = [
      "0.1.0-alpha",
      "0.1.0-alpha.2",
      "0.1.0-beta",
      "0.1.0-test",
      "0.1.0",
      "0.1.1-test",
      "0.1.1",
      "0.2.0",
      "1.0.0",
      "10.0.0",
    ];
    for (let i = 0; i + 1 < ordered.length; i++) {
      expect(compareVersions(ordered[i]!, ordered[i + 1]!)).toBe(-1);
      expect(compareVersions(ordered[i + 1]!, ordered[i]!)).toBe(1);
    }
    expect(compareVersions("0.1.0", "0.1.0")).toBe(0);
    expect(() => compareVersions("0.1", "0.1.0")).toThrow();
  });

  test("platform and asset names", () => {
    expect(currentPlatform("linux", "x64")).toBe("linux-x64");
    expect(currentPlatform("win32", "x64")).toBe("windows-x64");
    expect(currentPlatform("freebsd", "x64")).toBeNull();
    expect(assetName("1.2.3", "darwin-arm64")).toBe("bsk-1.2.3-darwin-arm64.tar.gz");
    expect(assetName("1.2.3", "windows-x64")).toBe("bsk-1.2.3-windows-x64.zip");
  });
});

describe("archives", () => {
  const data = crypto.getRandomValues(new Uint8Array(70_001));

  test("tar.gz round trip; the entry is executable for tar too", () => {
    const archive = tarGz([
      { name: "README", data: new TextEncoder().encode("hi") },
      { name: "bsk", data, mode: 0o755 },
    ]);
    expect(fromTarGz(archive, "bsk")).toEqual(data);
    expect(() => fromTarGz(archive, "other")).toThrow(/no other/);
    expect(() => fromTarGz(new Uint8Array([1, 2, 3]), "bsk")).toThrow(/not gzip/);
    const dir = tempDir("bsk-rel-");
    try {
      writeFileSync(join(dir, "a.tar.gz"), archive);
      const listing = Bun.spawnSync(["tar", "-tvzf", join(dir, "a.tar.gz")]).stdout.toString();
      expect(listing).toMatch(/^-rwxr-xr-x .* bsk$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("zip round trip; the mode and a fixed date are kept; a cut archive is refused", () => {
    const text = new TextEncoder().encode("a".repeat(5000));
    const archive = zip([
      { name: "bsk.exe", data, mode: 0o755 },
      { name: "dir/x.txt", data: text },
    ]);
    expect(zip([{ name: "bsk.exe", data, mode: 0o755 }])).toEqual(zip([{ name: "bsk.exe", data, mode: 0o755 }]));
    expect(fromZip(archive, "bsk.exe")).toEqual(data);
    expect(fromZip(archive, "dir/x.txt")).toEqual(text);
    expect(() => fromZip(archive, "other")).toThrow(/no other/);
    expect(() => fromZip(archive.slice(0, archive.length - 40), "bsk.exe")).toThrow(/not a readable zip/);
    const dir = tempDir("bsk-rel-");
    try {
      writeFileSync(join(dir, "a.zip"), archive);
      const listing = Bun.spawnSync(["unzip", "-Z", join(dir, "a.zip")]);
      if (listing.exitCode === 0) expect(listing.stdout.toString()).toMatch(/^-rwxr-xr-x .* 80-Jan-01 00:00 bsk\.exe$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("entries named ../bsk or /bsk are not bsk: refused, nothing is written anywhere", () => {
    const dir = tempDir("bsk-rel-");
    try {
      const outside = ["../bsk", "/bsk", `${dir}/bsk`, "./../bsk"];
      const entries = outside.map((name) => ({ name, data, mode: 0o755 }));
      expect(() => fromTarGz(tarGz(entries), "bsk")).toThrow(/no bsk in it/);
      expect(() => fromZip(zip(entries), "bsk")).toThrow(/no bsk in it/);
      expect(readdirSync(dir)).toEqual([]);
      expect(existsSync(join(dir, "../bsk"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("manifest", () => {
  const m: ReleaseManifest = {
    version: "0.2.0",
    protocol_version: "2.0",
    released_at: "2026-01-01T00:00:00.000Z",
    serial: 1767225600,
    expires_at: "2026-01-31T00:00:00Z",
    assets: { "linux-x64": { url: "https://h/x.tar.gz", sha256: "a".repeat(64), size: 5 }, "windows-x64": { url: "x.zip" } },
    extension: { url: "https://h/e.zip", sha256: "b".repeat(64) },
  };

  test("serialized as JSON with one line per asset (install.sh reads it with sed)", () => {
    const text = serializeManifest(m);
    expect(JSON.parse(text)).toEqual(m);
    expect(text).toContain(`    "linux-x64": {"url":"https://h/x.tar.gz","sha256":"${"a".repeat(64)}","size":5}`);
    expect(parseManifest(new TextEncoder().encode(text))).toEqual(m);
  });

  test("bad manifests are refused; unknown platforms ignored", () => {
    const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
    expect(() => parseManifest(enc({ ...m, version: "1.0" }))).toThrow(/version/);
    expect(() => parseManifest(new TextEncoder().encode("{"))).toThrow(/not JSON/);
    expect(parseManifest(enc({ ...m, assets: { "plan9-mips": { url: "x" } } })).assets).toEqual({});
    // Without a serial or an expiry a manifest could be replayed forever: refused, not defaulted.
    const { serial: _s, ...noSerial } = m;
    const { expires_at: _e, ...noExpiry } = m;
    expect(() => parseManifest(enc(noSerial))).toThrow(/no serial/);
    expect(() => parseManifest(enc({ ...m, serial: 1.5 }))).toThrow(/no serial/);
    expect(() => parseManifest(enc(noExpiry))).toThrow(/no expires_at/);
    expect(() => parseManifest(enc({ ...m, expires_at: "next month" }))).toThrow(/no expires_at/);
  });

  test("freshness: expired past the clock-skew allowance, or older than the newest serial seen, is refused", () => {
    const url = "https://h/latest/download/version.json";
    const expires = Date.parse(m.expires_at);
    const reason = (f: () => void) => {
      try {
        f();
        return "accepted";
      } catch (err) {
        return (err as BskError).data?.reason;
      }
    };
    expect(reason(() => checkFreshness(m, url, 0, expires - 1))).toBe("accepted");
    // A clock up to MANIFEST_CLOCK_SKEW_MS ahead of the host's still takes it; past that it is expired.
    expect(reason(() => checkFreshness(m, url, 0, expires + MANIFEST_CLOCK_SKEW_MS))).toBe("accepted");
    expect(reason(() => checkFreshness(m, url, 0, expires + MANIFEST_CLOCK_SKEW_MS + 1))).toBe("manifest_expired");
    expect(MANIFEST_CLOCK_SKEW_MS).toBe(3_600_000);
    // The same serial again is fine (the same manifest fetched twice); a lower one is a rollback.
    expect(reason(() => checkFreshness(m, url, m.serial, expires - 1))).toBe("accepted");
    expect(reason(() => checkFreshness(m, url, m.serial + 1, expires - 1))).toBe("manifest_rollback");
    let err: BskError | undefined;
    try {
      checkFreshness(m, url, 0, expires + 2 * 86_400_000);
    } catch (e) {
      err = e as BskError;
    }
    expect(err?.code).toBe("permission_denied");
    expect(err?.message).toBe(
      `the release manifest at ${url} expired at ${m.expires_at} (this computer's clock says 2026-02-02T00:00:00.000Z)`,
    );
    expect(err?.hint).toContain("clock is wrong");
  });

  test("the release script's serial rises with time and its expiry is whole seconds, valid for 30 days", () => {
    const t = Date.parse("2026-03-01T10:00:00.250Z");
    expect(signingFreshness(t)).toEqual({ serial: t / 1000 - 0.25, expires_at: "2026-03-31T10:00:00Z" });
    expect(signingFreshness(t + 1000).serial).toBeGreaterThan(signingFreshness(t).serial);
    const text = serializeManifest({ ...m, ...signingFreshness(t) });
    expect(text).toContain(`\n  "serial": ${t / 1000 - 0.25},\n  "expires_at": "2026-03-31T10:00:00Z",\n`);
  });

  test("asset URLs resolve against the manifest and must be http(s)", () => {
    expect(resolveAssetUrl("x.zip", "http://127.0.0.1:1/latest/download/version.json")).toBe("http://127.0.0.1:1/latest/download/x.zip");
    expect(() => resolveAssetUrl("file:///etc/passwd", "https://h/version.json")).toThrow(/not http/);
  });

  test("signatures: the right key verifies exactly these bytes; anything else is false", async () => {
    const k = keyPair();
    const other = keyPair();
    const bytes = new TextEncoder().encode(serializeManifest(m));
    const sig = signBytes(bytes, k.pem);
    expect(await verifySignature(bytes, sig, k.pub)).toBe(true);
    expect(await verifySignature(bytes, `${sig}\n`, k.pub)).toBe(true);
    expect(await verifySignature(bytes, sig, other.pub)).toBe(false);
    const tampered = bytes.slice();
    tampered[10]! ^= 1;
    expect(await verifySignature(tampered, sig, k.pub)).toBe(false);
    expect(await verifySignature(bytes, "not base64!", k.pub)).toBe(false);
    expect(await verifySignature(bytes, "", k.pub)).toBe(false);
    // The built-in key is a real Ed25519 key that this test's signature does not match.
    expect(await verifySignature(bytes, sig)).toBe(false);
  });
});

test("install.sh carries the built-in release key and the base URL the release script replaces", () => {
  const sh = readFileSync(join(root, "install.sh"), "utf8");
  expect(sh).toContain(`release_pubkey="${RELEASE_PUBLIC_KEY}"`);
  expect(sh).toContain(`default_base_url="${RELEASE_BASE_URL}"`);
});

describe("the repository is declared once and everything follows from it", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const installLine = `curl -fsSL ${GITHUB_RELEASES_URL}/latest/download/install.sh | sh`;

  test("package.json's repository is protocol/release.ts's REPOSITORY; releases are its GitHub releases", () => {
    expect(pkg.repository).toBe(`github:${REPOSITORY}`);
    expect(RELEASE_BASE_URL).toBe(`https://github.com/${REPOSITORY}/releases`);
    expect(latestManifestUrl()).toBe(`https://github.com/${REPOSITORY}/releases/latest/download/version.json`);
    expect(assetUrl(RELEASE_BASE_URL, "1.2.3", "SHA256SUMS")).toBe(`https://github.com/${REPOSITORY}/releases/download/v1.2.3/SHA256SUMS`);
  });

  test("install.sh and the README install with the same line; no placeholder host is left", () => {
    const sh = readFileSync(join(root, "install.sh"), "utf8");
    const readme = readFileSync(join(root, "README.md"), "utf8");
    expect(sh).toContain(`#   ${installLine}`);
    expect(readme).toContain(installLine);
    expect(readme).toContain(`https://github.com/${REPOSITORY}`);
    const files = ["install.sh", "README.md", "docs/install.md", "docs/development.md", "protocol/release.ts", "scripts/release.ts"];
    expect(files.filter((f) => /example\.com\/bsk|<owner>/.test(readFileSync(join(root, f), "utf8")))).toEqual([]);
  });
});

test("installedByNpm: a binary inside one of bsk's platform packages, on any OS's separators", () => {
  expect(installedByNpm("/usr/lib/node_modules/@bsk-dev/bsk/node_modules/@bsk-dev/bsk-linux-x64/bin/bsk")).toBe(true);
  expect(installedByNpm("/usr/local/lib/node_modules/@bsk-dev/bsk-darwin-arm64/bin/bsk")).toBe(true);
  expect(
    installedByNpm(
      "C:\\Users\\ann\\AppData\\Roaming\\npm\\node_modules\\@bsk-dev\\bsk\\node_modules\\@bsk-dev\\bsk-windows-x64\\bin\\bsk.exe",
    ),
  ).toBe(true);
  expect(installedByNpm("/home/ann/.local/bin/bsk")).toBe(false);
  expect(installedByNpm("/home/ann/node_modules/other/bin/bsk")).toBe(false);
  expect(installedByNpm("/home/ann/node_modules/@bsk-dev/bsk-linux-x64/lib/bsk")).toBe(false);
});
