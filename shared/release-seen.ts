/**
 * $BSK_HOME/release-seen.json: the serial of the newest signed release manifest this install has accepted. A manifest
 * with a lower serial is a rollback and is refused (protocol/release.ts checkFreshness). Written by `bsk update` and
 * the daemon's periodic check through the atomic-file helper; install.sh reads it (one line, `"serial": N`).
 */
import { inHome } from "./home.ts";
import { ensurePrivateDir, readJsonFile, writeFileAtomic } from "./fs-util.ts";

export function releaseSeenPath(home: string): string {
  return inHome(home, "release-seen.json");
}

/** The newest serial seen, or 0 when none was recorded. */
export function readSeenSerial(home: string): number {
  const raw = readJsonFile(releaseSeenPath(home)) as { serial?: unknown } | undefined;
  const serial = raw?.serial;
  return typeof serial === "number" && Number.isSafeInteger(serial) && serial > 0 ? serial : 0;
}

/** Keeps `serial` when it is newer than the one recorded (never lowers it). */
export function recordSeenSerial(home: string, serial: number): void {
  if (serial <= readSeenSerial(home)) return;
  ensurePrivateDir(home);
  writeFileAtomic(releaseSeenPath(home), `${JSON.stringify({ serial, seen_at: new Date().toISOString() })}\n`);
}
