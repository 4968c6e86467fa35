/**
 * The daemon's periodic update check (daemons the CLI started in the background, `--auto-update`): every 6 h
 * (BSK_UPDATE_INTERVAL_MS), counted from the last check recorded in update-state.json so restarts do not
 * re-check, fetch and verify the signed manifest and record what it found. A newer release of the same
 * protocol major is installed by spawning `<bin> update --yes --json` detached — only while no session is
 * live; a deferred one goes in as soon as the last session ends. A new protocol major needs the person to
 * update the extension too, so it is only reported (bsk status), never installed unattended.
 */
import { closeSync, openSync } from "node:fs";
import { BskError } from "../protocol/errors.ts";
import { compareVersions, installedByNpm, latestManifestUrl, RELEASE_HOST_KNOWN } from "../protocol/release.ts";
import { APP_VERSION, parseProtocolVersion, PROTOCOL_VERSION } from "../protocol/version.ts";
import { isCompiled } from "../shared/compiled.ts";
import type { DaemonConfig } from "./config.ts";
import type { Logger } from "./log.ts";
import { fetchVerifiedManifest } from "../shared/release-fetch.ts";
import { readUpdateState, writeUpdateState, type UpdateState } from "../shared/update-state.ts";

type Env = Record<string, string | undefined>;

export const UPDATE_INTERVAL_MS = 6 * 3600_000;
/** The first check after a start waits at least this long (or the interval, if shorter). */
const FIRST_CHECK_MS = 60_000;
const FETCH_TIMEOUT_MS = 10_000;

export interface UpdateCheckDeps {
  home: string;
  logPath: string;
  log: Logger;
  env: Env;
  intervalMs: number;
  liveSessions: () => number;
  /** The installed binary that runs `update` (this daemon's own executable). */
  execPath: string;
}

/** Where the manifest comes from, or undefined when this build has no release host and no override. */
export function checkUrl(env: Env): string | undefined {
  return env.BSK_UPDATE_MANIFEST_URL || (RELEASE_HOST_KNOWN ? latestManifestUrl() : undefined);
}

export class UpdateCheck {
  private timer: Timer | undefined;
  private running = false;
  private stopped = false;
  /** A newer release waits for the sessions to end. */
  private pending = false;
  /** The `bsk update` this daemon started is still running: no second one (it would only find the lock taken). */
  private installing = false;

  constructor(
    private readonly deps: UpdateCheckDeps,
    private readonly url: string,
  ) {}

  start(): void {
    const last = readUpdateState(this.deps.home);
    const lastMs = last ? Date.parse(last.checked_at) : NaN;
    const first = Math.min(FIRST_CHECK_MS, this.deps.intervalMs);
    const due = Number.isFinite(lastMs) ? lastMs + this.deps.intervalMs - Date.now() : 0;
    this.pending = last?.state === "deferred" && last.latest !== null && newer(last.latest);
    this.schedule(Math.min(this.deps.intervalMs, Math.max(first, due)));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Called on every registry change: a deferred update goes in once no session is live. */
  sessionsChanged(): void {
    if (this.pending && !this.running && !this.stopped && this.deps.liveSessions() === 0) void this.check();
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.check(), ms);
  }

  async check(): Promise<void> {
    if (this.running || this.installing) return this.schedule(this.deps.intervalMs);
    this.running = true;
    const { log } = this.deps;
    try {
      const m = await fetchVerifiedManifest(this.url, this.deps.home, { timeoutMs: FETCH_TIMEOUT_MS });
      this.pending = false;
      if (!newer(m.version)) return this.record({ latest: m.version, state: "current", error: null });
      if (parseProtocolVersion(m.protocol_version)?.major !== parseProtocolVersion(PROTOCOL_VERSION)?.major) {
        log.info("update available; it needs the matching extension, so it is left to the person", { latest: m.version });
        return this.record({ latest: m.version, state: "available", error: null, note: "needs the matching extension: run bsk update" });
      }
      if (this.deps.liveSessions() > 0) {
        this.pending = true;
        log.info("update available; deferred until no session is live", { latest: m.version });
        return this.record({ latest: m.version, state: "deferred", error: null });
      }
      this.record({ latest: m.version, state: "installing", error: null });
      log.info("installing update", { from: APP_VERSION, to: m.version });
      this.spawnUpdate();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const reason = err instanceof BskError ? err.data?.reason : undefined;
      log.warn("update check failed", { error: message, reason, url: this.url });
      this.record({
        latest: readUpdateState(this.deps.home)?.latest ?? null,
        state: "failed",
        error: message,
        ...(reason && { reason }),
      });
    } finally {
      this.running = false;
      this.schedule(this.deps.intervalMs);
    }
  }

  private record(s: Omit<UpdateState, "checked_at" | "current">): void {
    try {
      writeUpdateState(this.deps.home, { checked_at: new Date().toISOString(), current: APP_VERSION, ...s });
    } catch (err) {
      this.deps.log.warn("could not write update-state.json", { error: err });
    }
  }

  /** The updater stops this daemon and starts the new one, so it runs in its own session, output to our log. */
  private spawnUpdate(): void {
    const fd = openSync(this.deps.logPath, "a", 0o600);
    try {
      const child = Bun.spawn([this.deps.execPath, "update", "--yes", "--json"], {
        detached: true,
        stdin: "ignore",
        stdout: fd,
        stderr: fd,
        env: { ...this.deps.env, BSK_HOME: this.deps.home } as Record<string, string>,
      });
      child.unref();
      this.installing = true;
      void child.exited.finally(() => (this.installing = false));
    } finally {
      closeSync(fd);
    }
  }
}

function newer(version: string): boolean {
  try {
    return compareVersions(version, APP_VERSION) > 0;
  } catch {
    return false;
  }
}

/** The check for this daemon, started; undefined (with the reason logged) when it does not apply. */
export function startUpdateCheck(
  config: DaemonConfig,
  log: Logger,
  liveSessions: () => number,
  env: Env = process.env,
): UpdateCheck | undefined {
  if (!config.autoUpdate) return undefined;
  const url = checkUrl(env);
  if (!isCompiled() || !url || installedByNpm(process.execPath)) {
    const reason = !url
      ? "this build knows no release host"
      : isCompiled()
        ? "installed with npm, which updates it"
        : "not an installed binary";
    log.info("no automatic updates", { reason });
    return undefined;
  }
  const check = new UpdateCheck(
    {
      home: config.paths.home,
      logPath: config.paths.log,
      log,
      env,
      intervalMs: config.updateIntervalMs,
      liveSessions,
      execPath: process.execPath,
    },
    url,
  );
  check.start();
  return check;
}
