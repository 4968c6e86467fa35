/**
 * `bsk update [--check] [--yes]`: install the newest signed release over the running binary.
 *
 * Order: signed manifest → newer? → installed binary (not `bun cli/main.ts`) → no live session → confirmation →
 * lock → download with SHA-256 → unpack → the new binary runs and reports its version → no live session (again)
 * → atomic swap keeping `<bin>.previous` (Windows: the running exe renamed aside to `<bin>.old-<n>`, removed at the
 * next start) → daemon restarted and proven to serve the new version within 20 s,
 * else the previous binary and its daemon are put back. Every refusal leaves the binary untouched.
 */
import { realpathSync } from "node:fs";
import type { HomePaths } from "../../shared/home.ts";
import { fetchVerifiedManifest } from "../../shared/release-fetch.ts";
import { writeUpdateState, type UpdateState } from "../../shared/update-state.ts";
import { BskError } from "../../protocol/errors.ts";
import {
  compareVersions,
  currentPlatform,
  installedByNpm,
  NPM_PACKAGE,
  binaryName,
  isSha256,
  latestManifestUrl,
  RELEASE_HOST_KNOWN,
  resolveAssetUrl,
  type ReleaseManifest,
} from "../../protocol/release.ts";
import { APP_VERSION, parseProtocolVersion, PROTOCOL_VERSION } from "../../protocol/version.ts";
import { isCompiled } from "../../shared/compiled.ts";
import type { Outcome } from "../output.ts";
import { runningDaemon, startAndVerify, stopDaemon, type RunningDaemon } from "../update/daemon.ts";
import { download } from "../update/download.ts";
import { extractBinary } from "../update/extract.ts";
import { acquireUpdateLock } from "../update/lock.ts";
import { checkReportsVersion, restorePrevious, stage, swapIn } from "../update/swap.ts";
import { removeSwappedOut } from "../../shared/swapped-out.ts";

type Env = Record<string, string | undefined>;

interface Options {
  paths: HomePaths;
  env: Env;
  params: Record<string, unknown>;
  json: boolean;
}

export const SERVE_TIMEOUT_MS = 20_000;

function serveTimeoutMs(env: Env): number {
  const n = Number(env.BSK_UPDATE_SERVE_TIMEOUT_MS);
  return env.BSK_UPDATE_SERVE_TIMEOUT_MS && Number.isFinite(n) && n > 0 ? n : SERVE_TIMEOUT_MS;
}

export function manifestUrl(env: Env): string {
  if (env.BSK_UPDATE_MANIFEST_URL) return env.BSK_UPDATE_MANIFEST_URL;
  if (!RELEASE_HOST_KNOWN) {
    throw new BskError("unsupported", "this bsk was not built by npm run release, so it does not know where releases are published", {
      data: { reason: "no_release_host" },
    });
  }
  return latestManifestUrl();
}

async function isTTY(): Promise<boolean> {
  const tty = await import("node:tty");
  return tty.isatty(0) && tty.isatty(2);
}

function sessionsLive(sessions: string[], latest: string): BskError {
  return new BskError(
    "unsupported",
    `bsk ${latest} is available, but the update waits: ${sessions.length} session(s) live (${sessions.join(", ")})`,
    {
      data: { reason: "sessions_live", sessions, latest },
    },
  );
}

/** What the person must do about the extension when the release changes the protocol major. */
function extensionNote(m: ReleaseManifest): string | undefined {
  if (parseProtocolVersion(m.protocol_version)?.major === parseProtocolVersion(PROTOCOL_VERSION)?.major) return undefined;
  const where = m.extension?.url ?? `the bsk-extension-${m.version}.zip of the release`;
  return `bsk ${m.version} speaks protocol ${m.protocol_version}; update the extension too: unzip ${where} over its folder, then click reload in chrome://extensions.`;
}

async function confirm(m: ReleaseManifest, yes: boolean, json: boolean): Promise<void> {
  if (yes) return;
  if (json || !(await isTTY())) {
    throw new BskError("invalid_params", `bsk ${m.version} is available; installing it needs --yes when nobody can be asked`, {
      data: { reason: "confirmation_required", latest: m.version },
    });
  }
  const { consola } = await import("consola");
  const ok = await consola.prompt(`Install bsk ${m.version} over ${APP_VERSION} and restart the daemon?`, {
    type: "confirm",
    initial: true,
    cancel: "reject",
  });
  if (!ok) throw new BskError("cancelled", "update not installed", { hint: "Nothing changed; run bsk update again when you want it." });
}

function state(paths: HomePaths, s: Omit<UpdateState, "checked_at" | "current">): void {
  try {
    writeUpdateState(paths.home, { checked_at: new Date().toISOString(), current: APP_VERSION, ...s });
  } catch {
    // The state file is informational; never fail an update over it.
  }
}

export async function update({ paths, env, params, json }: Options): Promise<Outcome> {
  if (!params.check && !isCompiled()) {
    throw new BskError("unsupported", "bsk update replaces the installed bsk binary; this bsk runs from source", {
      data: { reason: "not_installed_binary" },
    });
  }
  if (!params.check && installedByNpm(realpathSync(process.execPath))) {
    throw new BskError("unsupported", "this bsk was installed with npm, so npm updates it", {
      hint: `npm i -g ${NPM_PACKAGE}@latest (bsk update --check still says whether a newer release exists).`,
      data: { reason: "npm_install" },
    });
  }
  const url = manifestUrl(env);
  const manifest = await fetchVerifiedManifest(url, paths.home);
  const newer = compareVersions(manifest.version, APP_VERSION) > 0;
  const base = {
    current: APP_VERSION,
    latest: manifest.version,
    update_available: newer,
    released_at: manifest.released_at,
    protocol_version: manifest.protocol_version,
    manifest_url: url,
    extension_url: manifest.extension?.url ?? null,
    extension_note: newer ? (extensionNote(manifest) ?? null) : null,
  };
  if (params.check || !newer) {
    if (!params.check) state(paths, { latest: manifest.version, state: "current", error: null });
    return { ok: true, format: "update", result: { ...base, checked: true, updated: false } };
  }

  const bin = realpathSync(process.execPath);
  const before = await runningDaemon(paths);
  if (before?.sessions.length) {
    state(paths, { latest: manifest.version, state: "deferred", error: null });
    throw sessionsLive(before.sessions, manifest.version);
  }
  await confirm(manifest, Boolean(params.yes), json);

  const release = acquireUpdateLock(bin);
  // What earlier Windows updates moved aside goes first, so the names do not pile up.
  removeSwappedOut(bin);
  try {
    const result = await install(paths, env, manifest, url, bin, json);
    state(paths, { latest: manifest.version, state: "updated", error: null });
    return { ok: true, format: "update", result: { ...base, ...result, updated: true } };
  } catch (err) {
    const e = err instanceof BskError ? err : new BskError("protocol_error", (err as Error).message);
    state(paths, { latest: manifest.version, state: e.data?.reason === "sessions_live" ? "deferred" : "failed", error: e.message });
    throw e;
  } finally {
    release();
  }
}

async function install(paths: HomePaths, env: Env, m: ReleaseManifest, url: string, bin: string, json: boolean) {
  const platform = currentPlatform();
  const asset = platform ? m.assets[platform] : undefined;
  if (!platform || !asset) {
    throw new BskError("unsupported", `release ${m.version} has no build for ${process.platform}-${process.arch}`, {
      data: { reason: "no_asset_for_platform" },
    });
  }
  if (!isSha256(asset.sha256)) {
    throw new BskError("invalid_params", `release ${m.version} names no SHA-256 for ${platform}; refusing to install it`, {
      data: { reason: "missing_checksum", platform },
    });
  }
  const assetUrl = resolveAssetUrl(asset.url, url);
  const got = await download(assetUrl, { expectedSize: asset.size, progress: !json && (await isTTY()) });
  if (got.sha256 !== asset.sha256) {
    throw new BskError("permission_denied", `the download of ${assetUrl} does not match the release's SHA-256; nothing was installed`, {
      data: { reason: "checksum_mismatch", expected: asset.sha256, actual: got.sha256 },
    });
  }
  const staged = stage(bin, extractBinary(got.bytes, assetUrl, binaryName(platform)));
  let swapped = false;
  try {
    await checkReportsVersion(staged, m.version);
    // A session may have started during the download.
    const before = await runningDaemon(paths);
    if (before?.sessions.length) throw sessionsLive(before.sessions, m.version);
    // Swapped first: the old daemon keeps running from the old file until it is stopped, and a failed swap leaves it be.
    const previous = swapIn(bin, staged);
    swapped = true;
    const daemon = await restartOrRollBack(paths, env, bin, previous, m.version, before);
    return { binary: bin, previous, daemon };
  } finally {
    if (!swapped) (await import("node:fs")).rmSync(staged, { force: true });
  }
}

/**
 * Prove the new binary's daemon serves. A daemon that was running is replaced by the new one; when none was,
 * the new one is started only to prove it, then stopped. On failure the previous binary (and its daemon) come back.
 */
async function restartOrRollBack(paths: HomePaths, env: Env, bin: string, previous: string, version: string, before: RunningDaemon | null) {
  const port = before?.port ?? Number(env.BSK_PORT || 52800);
  let pid: number;
  try {
    if (before) await stopDaemon(paths, env);
    pid = await startAndVerify(paths, env, bin, port, version, serveTimeoutMs(env));
  } catch (err) {
    restorePrevious(bin, previous);
    let restored: string;
    if (before) {
      await stopDaemon(paths, env).catch(() => undefined);
      try {
        const pid = await startAndVerify(paths, env, bin, port, before.version, serveTimeoutMs(env));
        restored = `the previous daemon (${before.version}) serves again, pid ${pid}`;
      } catch (e2) {
        restored = `the previous daemon did not come back either: ${(e2 as Error).message}`;
      }
    } else restored = "no daemon was running";
    throw new BskError("unsupported", `bsk ${version} was rolled back: ${(err as Error).message}; ${restored}`, {
      data: { reason: "update_rolled_back", version, binary: bin },
    });
  }
  // Proven; a daemon that was not running before is not left running (the next command starts one).
  if (!before) await stopDaemon(paths, env).catch(() => undefined);
  return { restarted: Boolean(before), pid: before ? pid : null, version };
}
