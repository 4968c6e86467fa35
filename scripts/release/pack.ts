/**
 * Turning built binaries and the unpacked extension into a release directory: one archive per platform, the
 * extension zip, SHA256SUMS, version.json and its detached Ed25519 signature (version.json.sig, base64).
 * `npm run release` and the update tests both use it, so tests exercise the real packaging.
 */
import { createPrivateKey, createPublicKey, sign } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import {
  assetName,
  assetUrl,
  binaryName,
  extensionAssetName,
  serializeManifest,
  type Platform,
  type ReleaseManifest,
} from "../../protocol/release.ts";
import { tarGz, zip, type Entry } from "./archive.ts";

export function sha256Hex(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

/** Base64 signature of `bytes` by an Ed25519 private key in PEM. */
export function signBytes(bytes: Uint8Array, privateKeyPem: string): string {
  return sign(null, bytes, createPrivateKey(privateKeyPem)).toString("base64");
}

/** The public half of an Ed25519 private key, as the base64 SPKI that protocol/release-key.ts holds. */
export function publicKeyOf(privateKeyPem: string): string {
  const der = createPublicKey(createPrivateKey(privateKeyPem)).export({ type: "spki", format: "der" });
  return Buffer.from(der).toString("base64");
}

/** The archive bytes for one platform's binary (entry `bsk`, or `bsk.exe`, mode 0755). */
export function packBinary(binary: Uint8Array, platform: Platform, level = 9): Uint8Array {
  const entry: Entry = { name: binaryName(platform), data: binary, mode: 0o755 };
  return platform.startsWith("windows-") ? zip([entry], level) : tarGz([entry], level);
}

function filesUnder(dir: string): Entry[] {
  const out: Entry[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push({ name: relative(dir, path), data: readFileSync(path) });
    }
  };
  walk(dir);
  return out;
}

export interface ReleaseInput {
  outDir: string;
  version: string;
  protocolVersion: string;
  baseUrl: string;
  /** Built binary per platform (a path, or the bytes). */
  binaries: Partial<Record<Platform, string | Uint8Array>>;
  /** The unpacked extension (dist/extension); left out when absent. */
  extensionDir?: string;
  privateKeyPem: string;
  releasedAt?: string;
  /** The manifest's serial and expiry; by default signingFreshness() of now. */
  serial?: number;
  expiresAt?: string;
  /** gzip/deflate level; tests use 1 to stay fast. */
  level?: number;
}

/** How long a signed manifest is taken by default: `npm run release -- --refresh` re-signs it before then. */
export const MANIFEST_VALID_DAYS = 30;

/**
 * The serial (Unix time in seconds, so every signing is newer than the last without any state kept) and the expiry
 * (to the second, UTC) of a manifest signed at `now`.
 */
export function signingFreshness(now = Date.now(), validDays = MANIFEST_VALID_DAYS): { serial: number; expires_at: string } {
  const expires = new Date(Math.floor(now / 1000) * 1000 + validDays * 86_400_000);
  return { serial: Math.floor(now / 1000), expires_at: expires.toISOString().replace(/\.\d{3}Z$/, "Z") };
}

export interface ReleaseOutput {
  manifest: ReleaseManifest;
  manifestBytes: Uint8Array;
  /** File name → size, every file written. */
  files: Record<string, number>;
}

export function writeRelease(input: ReleaseInput): ReleaseOutput {
  const { outDir, version, baseUrl } = input;
  mkdirSync(outDir, { recursive: true });
  const files: Record<string, number> = {};
  const sums: string[] = [];
  const put = (name: string, bytes: Uint8Array) => {
    writeFileSync(join(outDir, name), bytes);
    files[name] = bytes.length;
    return sha256Hex(bytes);
  };

  const fresh = signingFreshness();
  const manifest: ReleaseManifest = {
    version,
    protocol_version: input.protocolVersion,
    released_at: input.releasedAt ?? new Date().toISOString(),
    serial: input.serial ?? fresh.serial,
    expires_at: input.expiresAt ?? fresh.expires_at,
    assets: {},
  };
  for (const [platform, bin] of Object.entries(input.binaries) as [Platform, string | Uint8Array][]) {
    const name = assetName(version, platform);
    const bytes = packBinary(typeof bin === "string" ? readFileSync(bin) : bin, platform, input.level);
    const sha256 = put(name, bytes);
    sums.push(`${sha256}  ${name}`);
    manifest.assets[platform] = { url: assetUrl(baseUrl, version, name), sha256, size: bytes.length };
  }
  if (input.extensionDir) {
    const name = extensionAssetName(version);
    const sha256 = put(name, zip(filesUnder(input.extensionDir), input.level));
    sums.push(`${sha256}  ${name}`);
    manifest.extension = { url: assetUrl(baseUrl, version, name), sha256 };
  }
  const manifestBytes = new TextEncoder().encode(serializeManifest(manifest));
  sums.push(`${put("version.json", manifestBytes)}  version.json`);
  put("version.json.sig", new TextEncoder().encode(`${signBytes(manifestBytes, input.privateKeyPem)}\n`));
  put("SHA256SUMS", new TextEncoder().encode(`${sums.join("\n")}\n`));
  return { manifest, manifestBytes, files };
}

/**
 * Re-sign the manifest of the release in `outDir` with a fresh serial and expiry (nothing else in it changes), and
 * put version.json's new SHA-256 in SHA256SUMS: `npm run release -- --refresh`, run before the old one expires.
 */
export function refreshManifest(
  outDir: string,
  privateKeyPem: string,
  fresh: { serial: number; expires_at: string } = signingFreshness(),
): ReleaseManifest {
  const path = join(outDir, "version.json");
  const manifest = { ...(JSON.parse(readFileSync(path, "utf8")) as ReleaseManifest), ...fresh };
  const bytes = new TextEncoder().encode(serializeManifest(manifest));
  writeFileSync(path, bytes);
  writeFileSync(join(outDir, "version.json.sig"), `${signBytes(bytes, privateKeyPem)}\n`);
  const sumsPath = join(outDir, "SHA256SUMS");
  const sums = readFileSync(sumsPath, "utf8").replace(/^[0-9a-f]{64} {2}version\.json$/m, `${sha256Hex(bytes)}  version.json`);
  writeFileSync(sumsPath, sums);
  return manifest;
}
