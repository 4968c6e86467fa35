/** daemon.json: how a client finds the running daemon. Written atomically, removed on exit. */
import { readJsonFile, removeFile, writeFileAtomic } from "../shared/fs-util.ts";
import type { DaemonInfo, HomePaths } from "../shared/home.ts";

export function writeDaemonJson(paths: HomePaths, info: DaemonInfo): void {
  writeFileAtomic(paths.daemonJson, `${JSON.stringify(info, null, 2)}\n`);
}

export function readDaemonJson(paths: HomePaths): DaemonInfo | undefined {
  const raw = readJsonFile(paths.daemonJson) as Partial<DaemonInfo> | undefined;
  if (!raw || typeof raw.pid !== "number" || typeof raw.socket !== "string" || typeof raw.ws_port !== "number") {
    return undefined;
  }
  return raw as DaemonInfo;
}

/** Remove daemon.json only if it still describes this process (a successor may have written its own). */
export function removeDaemonJson(paths: HomePaths, pid: number): void {
  if (readDaemonJson(paths)?.pid === pid) removeFile(paths.daemonJson);
}
