/**
 * Releases: asset names, where they live, the signed manifest (`version.json` + `version.json.sig`) and its checks.
 * Shared by `npm run release` (writes them), `bsk update` and the daemon's periodic check (read them); install.sh
 * follows the same names and URL pattern.
 *
 * Releases are GitHub releases of REPOSITORY (package.json `repository`; tests/unit/release.test.ts checks they agree).
 * URL pattern, from a base URL (GitHub's: GITHUB_RELEASES_URL):
 *   <base>/latest/download/version.json      the newest manifest (and .sig)
 *   <base>/download/v<version>/<asset>       every asset of one release
 */
import { BskError } from "./errors.ts";
import { RELEASE_PUBLIC_KEY } from "./release-key.ts";

declare const BUILD_RELEASE_BASE_URL: string | undefined;

/** The project's GitHub repository, `owner/name`: its releases are bsk's releases. */
export const REPOSITORY = "bsk-dev/bsk";

export const GITHUB_RELEASES_URL = `https://github.com/${REPOSITORY}/releases`;

/** Where releases are published; `npm run release` bakes its base URL (BSK_RELEASE_BASE_URL or GitHub's) into its binaries. */
export const RELEASE_BASE_URL: string = typeof BUILD_RELEASE_BASE_URL !== "undefined" ? BUILD_RELEASE_BASE_URL : GITHUB_RELEASES_URL;

/** Built by `npm run release`, so it knows where its updates come from (a dev build does not). */
export const RELEASE_HOST_KNOWN: boolean = typeof BUILD_RELEASE_BASE_URL !== "undefined";

export const PLATFORMS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "windows-x64"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Versions go into file names and URLs, so only this shape is accepted. */
const VERSION_RE = /^(\d{1,6})\.(\d{1,6})\.(\d{1,6})(?:-([0-9A-Za-z.-]{1,64}))?$/;
const SHA256_RE = /^[0-9a-f]{64}$/;
export const MANIFEST_MAX_BYTES = 1 << 20;
/** A base64 Ed25519 signature is 88 characters; room for a newline and nothing much else. */
export const SIGNATURE_MAX_BYTES = 4096;

export function currentPlatform(platform: string = process.platform, arch: string = process.arch): Platform | null {
  const os = platform === "win32" ? "windows" : platform;
  const name = `${os}-${arch}`;
  return (PLATFORMS as readonly string[]).includes(name) ? (name as Platform) : null;
}

/** The npm package that installs bsk (`npm i -g @bsk-dev/bsk`); each platform's binary is its own package. */
export const NPM_PACKAGE = `@${REPOSITORY.split("/")[0]}/bsk`;

/** `@bsk-dev/bsk-linux-x64`: an optional dependency of NPM_PACKAGE that npm installs only on its os and cpu. */
export function npmPlatformPackage(platform: Platform): string {
  return `${NPM_PACKAGE}-${platform}`;
}

/** The executable's name inside an archive. */
export function binaryName(platform: Platform): string {
  return platform.startsWith("windows-") ? "bsk.exe" : "bsk";
}

/** `bsk-<version>-<os>-<arch>.tar.gz`, or `.zip` for Windows. */
export function assetName(version: string, platform: Platform): string {
  return `bsk-${version}-${platform}${platform.startsWith("windows-") ? ".zip" : ".tar.gz"}`;
}

export function extensionAssetName(version: string): string {
  return `bsk-extension-${version}.zip`;
}

export function assetUrl(base: string, version: string, name: string): string {
  return `${base.replace(/\/+$/, "")}/download/v${version}/${name}`;
}

export function latestManifestUrl(base: string = RELEASE_BASE_URL): string {
  return `${base.replace(/\/+$/, "")}/latest/download/version.json`;
}

// ---------------------------------------------------------------- versions

export function isVersion(v: unknown): v is string {
  return typeof v === "string" && VERSION_RE.test(v);
}

/** Semver order: numeric core, then a release beats its pre-releases, then pre-release identifiers. */
export function compareVersions(a: string, b: string): number {
  const ma = VERSION_RE.exec(a);
  const mb = VERSION_RE.exec(b);
  if (!ma || !mb) throw new Error(`not a version: ${ma ? b : a}`);
  for (let i = 1; i <= 3; i++) {
    const d = Number(ma[i]) - Number(mb[i]);
    if (d) return Math.sign(d);
  }
  const pa = ma[4];
  const pb = mb[4];
  if (pa === pb) return 0;
  if (pa === undefined) return 1;
  if (pb === undefined) return -1;
  const xa = pa.split(".");
  const xb = pb.split(".");
  for (let i = 0; i < Math.max(xa.length, xb.length); i++) {
    const x = xa[i];
    const y = xb[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return Math.sign(Number(x) - Number(y));
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

// ---------------------------------------------------------------- manifest

export interface ReleaseAsset {
  url: string;
  /** Absent or malformed is refused when this asset is installed (missing_checksum), not at parse time. */
  sha256?: string;
  size?: number;
}

export interface ReleaseManifest {
  version: string;
  protocol_version: string;
  released_at: string;
  /** Rises with every signing (the release script uses the Unix time in seconds): an older one is a rollback. */
  serial: number;
  /** After this (plus MANIFEST_CLOCK_SKEW_MS) the manifest is refused: a mirror cannot freeze bsk on it forever. */
  expires_at: string;
  assets: Partial<Record<Platform, ReleaseAsset>>;
  extension?: { url: string; sha256?: string };
}

/**
 * The manifest's bytes, serialized so that install.sh can read it with sed: the top level pretty-printed and
 * each asset on one line. Still plain JSON.
 */
export function serializeManifest(m: ReleaseManifest): string {
  const lines = [
    "{",
    `  "version": ${JSON.stringify(m.version)},`,
    `  "protocol_version": ${JSON.stringify(m.protocol_version)},`,
    `  "released_at": ${JSON.stringify(m.released_at)},`,
    `  "serial": ${JSON.stringify(m.serial)},`,
    `  "expires_at": ${JSON.stringify(m.expires_at)},`,
    `  "assets": {`,
    Object.entries(m.assets)
      .map(([p, a]) => `    ${JSON.stringify(p)}: ${JSON.stringify(a)}`)
      .join(",\n"),
    `  },`,
    `  "extension": ${JSON.stringify(m.extension ?? null)}`,
    "}",
    "",
  ];
  return lines.join("\n");
}

function badManifest(why: string): BskError {
  return new BskError("unsupported", `the release manifest is not usable: ${why}`, { data: { reason: "bad_manifest" } });
}

/** Parse a manifest whose signature was already verified. */
export function parseManifest(bytes: Uint8Array): ReleaseManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw badManifest("not JSON");
  }
  if (!raw || typeof raw !== "object") throw badManifest("not an object");
  const m = raw as Record<string, unknown>;
  if (!isVersion(m.version)) throw badManifest(`version ${JSON.stringify(m.version)}`);
  if (typeof m.protocol_version !== "string") throw badManifest("no protocol_version");
  if (typeof m.serial !== "number" || !Number.isSafeInteger(m.serial) || m.serial < 1) throw badManifest("no serial");
  if (typeof m.expires_at !== "string" || !EXPIRES_RE.test(m.expires_at)) throw badManifest("no expires_at");
  if (!m.assets || typeof m.assets !== "object") throw badManifest("no assets");
  const assets: ReleaseManifest["assets"] = {};
  for (const [platform, a] of Object.entries(m.assets as Record<string, unknown>)) {
    if (!(PLATFORMS as readonly string[]).includes(platform)) continue;
    if (!a || typeof a !== "object" || typeof (a as ReleaseAsset).url !== "string") throw badManifest(`asset ${platform} has no url`);
    const { url, sha256, size } = a as Record<string, unknown>;
    assets[platform as Platform] = {
      url: url as string,
      sha256: typeof sha256 === "string" ? sha256 : undefined,
      size: typeof size === "number" && Number.isSafeInteger(size) && size >= 0 ? size : undefined,
    };
  }
  const ext = m.extension as Record<string, unknown> | null | undefined;
  return {
    version: m.version,
    protocol_version: m.protocol_version,
    released_at: typeof m.released_at === "string" ? m.released_at : "",
    serial: m.serial,
    expires_at: m.expires_at,
    assets,
    extension:
      ext && typeof ext.url === "string" ? { url: ext.url, sha256: typeof ext.sha256 === "string" ? ext.sha256 : undefined } : undefined,
  };
}

export function isSha256(v: unknown): v is string {
  return typeof v === "string" && SHA256_RE.test(v);
}

// ---------------------------------------------------------------- freshness

/** UTC, to the second (what the release script writes); install.sh compares it as text, so this shape only. */
const EXPIRES_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/;

/** A clock this far ahead of the release host's still takes a manifest just past its expiry (install.sh: the same). */
export const MANIFEST_CLOCK_SKEW_MS = 3_600_000;

/**
 * A signed manifest is refused when it expired (a mirror replaying it to freeze bsk on an old release) or is older
 * than the newest one this install has seen (`newestSeen`, a rollback). Checked after the signature.
 */
export function checkFreshness(m: ReleaseManifest, url: string, newestSeen: number, now: number = Date.now()): void {
  const expires = Date.parse(m.expires_at);
  if (!(now <= expires + MANIFEST_CLOCK_SKEW_MS)) {
    const clock = new Date(now).toISOString();
    throw new BskError(
      "permission_denied",
      `the release manifest at ${url} expired at ${m.expires_at} (this computer's clock says ${clock})`,
      {
        data: { reason: "manifest_expired", url, expires_at: m.expires_at, now: clock, serial: m.serial },
      },
    );
  }
  if (m.serial < newestSeen) {
    throw new BskError(
      "permission_denied",
      `the release manifest at ${url} is older (serial ${m.serial}) than one bsk has already seen (serial ${newestSeen})`,
      { data: { reason: "manifest_rollback", url, serial: m.serial, newest_seen: newestSeen } },
    );
  }
}

// ---------------------------------------------------------------- signature

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  const t = text.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(t)) return null;
  return Uint8Array.from(atob(t), (c) => c.charCodeAt(0));
}

/** Does `sigBase64` sign exactly `bytes` with the Ed25519 key `spkiBase64`? Anything malformed is false. */
export async function verifySignature(bytes: Uint8Array, sigBase64: string, spkiBase64: string = RELEASE_PUBLIC_KEY): Promise<boolean> {
  const sig = fromBase64(sigBase64);
  const spki = fromBase64(spkiBase64);
  if (sig?.length !== 64 || !spki) return false;
  try {
    const key = await crypto.subtle.importKey("spki", spki, { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify("Ed25519", key, sig, bytes as Uint8Array<ArrayBuffer>);
  } catch {
    return false;
  }
}

export function badSignature(url: string): BskError {
  return new BskError("permission_denied", `the release manifest at ${url} is not signed by the bsk release key`, {
    data: { reason: "bad_signature", url },
  });
}

// ---------------------------------------------------------------- asset URLs

/** Only http(s), resolved against the manifest's own URL (so a mirror may use relative asset URLs). */
export function resolveAssetUrl(url: string, manifestUrl: string): string {
  let u: URL;
  try {
    u = new URL(url, manifestUrl);
  } catch {
    throw badManifest(`asset url ${JSON.stringify(url)}`);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw badManifest(`asset url ${JSON.stringify(url)} is not http(s)`);
  return u.href;
}
