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
  /** gzip/deflate level; tests use 1 to stay fast. */
  level?: number;
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

  const manifest: ReleaseManifest = {
    version,
    protocol_version: input.protocolVersion,
    released_at: input.releasedAt ?? new Date().toISOString(),
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
