/**
 * daemon.start-error.json: why the last daemon of this home could not start (its pid and error body), so the
 * CLI that spawned it in the background can say so instead of "exited with code 1". Removed once a daemon serves.
 */
import { toErrorBody, type ErrorBody } from "../protocol/errors.ts";
import { readJsonFile, removeFile, writeFileAtomic } from "./fs-util.ts";
import type { HomePaths } from "./home.ts";

export interface StartError {
  pid: number;
  at: string;
  error: ErrorBody;
}

export function recordStartError(paths: HomePaths, err: unknown): void {
  const report: StartError = { pid: process.pid, at: new Date().toISOString(), error: toErrorBody(err) };
  try {
    writeFileAtomic(paths.startError, `${JSON.stringify(report)}\n`);
  } catch {
    // $BSK_HOME itself may be what failed; the log (and stderr) still have it.
  }
}

export function clearStartError(paths: HomePaths): void {
  removeFile(paths.startError);
}

/** The error daemon `pid` recorded, if it is the one that failed. */
export function readStartError(paths: HomePaths, pid: number): ErrorBody | undefined {
  const report = readJsonFile(paths.startError) as Partial<StartError> | undefined;
  const error = report?.error;
  if (report?.pid !== pid || !error || typeof error.message !== "string" || typeof error.code !== "string") return undefined;
  return error;
}
