/**
 * The CLI ↔ daemon socket's folder, the daemon's side: made (or accepted) only when it is this user's alone, before
 * the daemon listens (and every connection's peer is checked, peer-cred.ts). The CLI's check before it connects is
 * socket-check.ts, with the same rules. A Windows named pipe lives in no folder: there is nothing here to check for it.
 */
import { lstatSync, mkdirSync } from "node:fs";
import { ensurePrivateDir } from "./fs-util.ts";
import { isPipe, type HomePaths } from "./home.ts";
import { folderProblem, myUid, plantedHint, untrusted } from "./socket-check.ts";

/**
 * Before the daemon listens: the socket's folder exists, is this user's and no one else's. $BSK_HOME/run is ours
 * to create and fix; a folder outside $BSK_HOME is created exclusively (0700) or, when it exists, used only if it
 * passes the same checks as the CLI's.
 */
export function prepareSocketDir(paths: HomePaths): void {
  if (isPipe(paths.socket)) return;
  const uid = myUid();
  const inHome = paths.runDir === `${paths.home}/run`;
  if (inHome) ensurePrivateDir(paths.runDir);
  else {
    try {
      mkdirSync(paths.runDir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  if (uid === undefined) return;
  const problem = folderProblem(paths.runDir, lstatSync(paths.runDir), uid);
  if (problem) throw untrusted(paths.runDir, problem, plantedHint(paths.runDir));
}
