/**
 * npm run release [platform...]: cross-compile bsk for every platform (each target's Bun runtime is downloaded
 * once from the npm registry into ~/.bun/install/cache), ad-hoc sign the macOS binaries and verify their signatures
 * (scripts/release/codesign.ts: the release fails when one does not verify), pack the archives and the extension zip, and write
 * SHA256SUMS, version.json and version.json.sig into dist/release/, plus install.sh pointing at the release host, and
 * the npm packages (scripts/release/npm.ts) into dist/release/npm/.
 *
 * Needs the release private key: BSK_RELEASE_KEY_FILE=/path/to/release-ed25519.pem (never in the repo).
 * Releases are GitHub releases of REPOSITORY (package.json `repository`); BSK_RELEASE_BASE_URL publishes elsewhere
 * (baked into the binaries as their update source either way). With GH_TOKEN or GITHUB_TOKEN set, and the default
 * base URL, it publishes them with `gh release create`; without, it says what it would run.
 *
 * The manifest carries a serial (the signing time) and an expiry (BSK_RELEASE_VALID_DAYS, default 30 days) so a
 * mirror can neither replay it forever nor roll bsk back to an older one. `npm run release -- --refresh` re-signs the
 * manifest in dist/release/ with a fresh serial and expiry (nothing rebuilt) and uploads it over the release's own:
 * run it before the latest release's manifest expires, or every bsk refuses it (manifest_expired).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { RELEASE_PUBLIC_KEY } from "../protocol/release-key.ts";
import {
  binaryName,
  GITHUB_RELEASES_URL,
  latestManifestUrl,
  PLATFORMS,
  RELEASE_BASE_URL,
  REPOSITORY,
  type Platform,
} from "../protocol/release.ts";
import { APP_VERSION, PROTOCOL_VERSION } from "../protocol/version.ts";
import { buildReleaseBinary } from "./release/build-target.ts";
import { writeNpmPackages } from "./release/npm.ts";
import { MANIFEST_VALID_DAYS, publicKeyOf, refreshManifest, signingFreshness, writeRelease } from "./release/pack.ts";

const root = join(import.meta.dir, "..");
const out = join(root, "dist/release");

function fail(message: string, hint: string): never {
  console.error(`error: ${message}\nhint: ${hint}`);
  process.exit(1);
}

const keyFile = process.env.BSK_RELEASE_KEY_FILE;
if (!keyFile)
  fail(
    "BSK_RELEASE_KEY_FILE is not set",
    "Point it at the release private key (PEM, Ed25519): BSK_RELEASE_KEY_FILE=~/keys/release-ed25519.pem npm run release",
  );
let privateKeyPem: string;
try {
  privateKeyPem = readFileSync(keyFile, "utf8");
} catch (err) {
  fail(`cannot read ${keyFile}: ${(err as Error).message}`, "Check the path and its permissions.");
}
if (publicKeyOf(privateKeyPem) !== RELEASE_PUBLIC_KEY) {
  fail(
    `${keyFile} is not the release key built into bsk`,
    "Installed binaries would refuse this release; use the key whose public half is in protocol/release-key.ts.",
  );
}

const baseUrl = (process.env.BSK_RELEASE_BASE_URL || RELEASE_BASE_URL).replace(/\/+$/, "");
if (!/^https?:\/\//.test(baseUrl))
  fail(`BSK_RELEASE_BASE_URL ${JSON.stringify(baseUrl)} is not an http(s) URL`, `For example ${GITHUB_RELEASES_URL}`);

const validDays = Number(process.env.BSK_RELEASE_VALID_DAYS || MANIFEST_VALID_DAYS);
if (!(Number.isInteger(validDays) && validDays >= 1 && validDays <= 365))
  fail(
    `BSK_RELEASE_VALID_DAYS ${JSON.stringify(process.env.BSK_RELEASE_VALID_DAYS)} is not a whole number of days from 1 to 365`,
    "For example 30.",
  );
const fresh = signingFreshness(Date.now(), validDays);

if (process.argv[2] === "--refresh") {
  if (!existsSync(join(out, "version.json")))
    fail("dist/release/version.json is missing", "Run npm run release first (or copy the release's files into dist/release/).");
  const m = refreshManifest(out, privateKeyPem, fresh);
  console.log(`re-signed the manifest of ${m.version}: serial ${m.serial}, expires ${m.expires_at}`);
  const upload = ["gh", "release", "upload", `v${m.version}`, "--repo", REPOSITORY, "--clobber"];
  upload.push(...["version.json", "version.json.sig", "SHA256SUMS"].map((f) => `dist/release/${f}`));
  if (baseUrl !== GITHUB_RELEASES_URL || (!process.env.GH_TOKEN && !process.env.GITHUB_TOKEN)) {
    console.log(
      `Upload version.json, version.json.sig and SHA256SUMS over the release's own; with GH_TOKEN this runs:\n  ${upload.join(" ")}`,
    );
    process.exit(0);
  }
  const uploaded = Bun.spawnSync(upload, { cwd: root, stdout: "inherit", stderr: "inherit" });
  if (uploaded.exitCode !== 0) fail(`gh release upload exited ${uploaded.exitCode}`, "Fix the cause and run the command again.");
  process.exit(0);
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((p) => !(PLATFORMS as readonly string[]).includes(p));
if (unknown.length) fail(`unknown platform ${unknown.join(", ")}`, `Choose from: ${PLATFORMS.join(", ")}`);
const platforms = (wanted.length ? wanted : PLATFORMS) as Platform[];

const extensionDir = join(root, "dist/extension");
const extManifest = join(extensionDir, "manifest.json");
if (!existsSync(extManifest)) fail("dist/extension is missing", "npm run build (npm run release runs it first)");
const extVersion = JSON.parse(readFileSync(extManifest, "utf8")).version;
if (extVersion !== APP_VERSION)
  fail(`dist/extension is version ${extVersion}, bsk is ${APP_VERSION}`, "npm run build, then release again.");

const t0 = performance.now();
rmSync(out, { recursive: true, force: true });
const buildDir = join(out, ".build");
mkdirSync(buildDir, { recursive: true });
const binaries: Partial<Record<Platform, string>> = {};
for (const platform of platforms) {
  const t = performance.now();
  const file = join(buildDir, platform, binaryName(platform));
  mkdirSync(join(buildDir, platform), { recursive: true });
  let signed = "";
  try {
    const { signature } = await buildReleaseBinary(platform, file, { BUILD_RELEASE_BASE_URL: baseUrl });
    if (signature) signed = `, ad-hoc signed (${signature.pages} pages verified)`;
  } catch (err) {
    fail(`${platform}: ${(err as Error).message}`, "Nothing was released; fix the build or the signer (scripts/release/codesign.ts).");
  }
  binaries[platform] = file;
  console.log(`built ${platform}${signed} in ${Math.round(performance.now() - t)} ms`);
}

const { files } = writeRelease({
  outDir: out,
  version: APP_VERSION,
  protocolVersion: PROTOCOL_VERSION,
  baseUrl,
  binaries,
  extensionDir,
  privateKeyPem,
  serial: fresh.serial,
  expiresAt: fresh.expires_at,
});
// The npm packages hold the same signed binaries (not release assets: npm publishes them, below).
const npmDirs = writeNpmPackages({ version: APP_VERSION, out: join(out, "npm"), binaries });
rmSync(buildDir, { recursive: true, force: true });

const installer = readFileSync(join(root, "install.sh"), "utf8");
const marker = `default_base_url="${RELEASE_BASE_URL}"`;
if (!installer.includes(marker)) fail("install.sh has no default base URL line to fill in", `Expected: ${marker}`);
writeFileSync(join(out, "install.sh"), installer.replace(marker, `default_base_url="${baseUrl}"`), { mode: 0o755 });
files["install.sh"] = Buffer.byteLength(installer);

console.log(`\nrelease ${APP_VERSION} (protocol ${PROTOCOL_VERSION}) in dist/release/, ${Math.round((performance.now() - t0) / 1000)} s:`);
for (const [name, size] of Object.entries(files)) console.log(`  ${name.padEnd(36)} ${(size / 1e6).toFixed(1).padStart(7)} MB`);

console.log(
  `\nnpm packages in dist/release/npm/ (${npmDirs.length}); publish each in this order, the platform ones first:\n` +
    npmDirs.map((d) => `  npm publish ${relative(root, d)} --access public`).join("\n"),
);

if (baseUrl !== GITHUB_RELEASES_URL) {
  console.log(`\nPublish every file under ${baseUrl}/download/v${APP_VERSION}/ and mark it latest (${latestManifestUrl(baseUrl)}).`);
  process.exit(0);
}
const assets = Object.keys(files).map((name) => `dist/release/${name}`);
const gh = [
  "gh",
  "release",
  "create",
  `v${APP_VERSION}`,
  "--repo",
  REPOSITORY,
  "--title",
  `bsk ${APP_VERSION}`,
  "--latest",
  "--generate-notes",
  ...assets,
];
if (!process.env.GH_TOKEN && !process.env.GITHUB_TOKEN) {
  console.log(`\nGH_TOKEN / GITHUB_TOKEN is not set, so nothing was published. With one, this runs:\n  ${gh.join(" ")}`);
  process.exit(0);
}
if (!Bun.which("gh"))
  fail("GH_TOKEN is set but the GitHub CLI (gh) is not installed", `Install it (https://cli.github.com), or run: ${gh.join(" ")}`);
console.log(`\npublishing: ${gh.join(" ")}`);
const published = Bun.spawnSync(gh, { cwd: root, stdout: "inherit", stderr: "inherit" });
if (published.exitCode !== 0)
  fail(
    `gh release create exited ${published.exitCode}`,
    "Nothing is marked latest unless gh said so; fix the cause and run the gh command above again.",
  );
console.log(`published v${APP_VERSION}: ${latestManifestUrl(baseUrl)}`);
