/**
 * Before the CLI uses the daemon's loopback TCP port: the home it read the port and the link key from is this user's
 * alone, by the daemon's own rules (it keeps the home 0700 and refuses a link.key another user could read or swap:
 * key-file.ts). On the socket, the socket's folder check stops a home another user made and filled with a key and a
 * daemon.json of their own (socket-check.ts); the TCP port has no folder, so without this the CLI would prove their key
 * to their listener and send it the call. Not on the hot path: only when the socket does not answer, or with
 * BSK_TRANSPORT=tcp. Windows has no uids (its %LOCALAPPDATA% is guarded by the user's own access rules), and a CLI in
 * WSL reading the Windows home through /mnt/c sees no real owners there (cli/wsl-daemon.ts): neither is checked.
 */
import { statSync } from "node:fs";
import { BskError } from "../protocol/errors.ts";
import type { HomePaths } from "./home.ts";
import { folderProblem, myUid, statOrNone } from "./socket-check.ts";

const UNTRUSTED_HOME = "untrusted_home";

function untrustedHome(path: string, why: string): BskError {
  return new BskError("permission_denied", `refusing the bsk daemon's TCP port: ${why}`, {
    hint:
      `Another local user may be posing as the bsk daemon; nothing was sent. Point BSK_HOME at a folder of your own ` +
      `(the daemon makes it 0700), or have ${path} removed if it is not yours.`,
    data: { reason: UNTRUSTED_HOME, path },
  });
}

/** Throws (permission_denied, reason untrusted_home) unless the home, its link.key and daemon.json are this user's alone. */
export function checkHomeForTcp(paths: Pick<HomePaths, "home" | "linkKey" | "daemonJson">): void {
  const uid = myUid();
  if (uid === undefined) return;
  try {
    const home = statOrNone(paths.home, statSync);
    if (!home) return;
    const problem = folderProblem(paths.home, home, uid);
    if (problem) throw untrustedHome(paths.home, problem);
    // Root's are trusted, as everywhere; a file that is not a regular one holds no key a reader would take (a
    // sandbox that hides the key binds /dev/null over it: the read then says the key is missing).
    const problemWith = (path: string, openBits: number, what: string): string | undefined => {
      const st = statOrNone(path);
      if (!st) return undefined;
      if (st.uid !== uid && st.uid !== 0) return `${path} belongs to uid ${st.uid}, not to you (uid ${uid})`;
      if (st.uid === uid && st.isFile() && st.mode & openBits)
        return `${path} is not yours alone ${what} (mode ${(st.mode & 0o777).toString(8)})`;
      return undefined;
    };
    const key = problemWith(paths.linkKey, 0o077, "to read");
    if (key) throw untrustedHome(paths.linkKey, key);
    const info = problemWith(paths.daemonJson, 0o022, "to change");
    if (info) throw untrustedHome(paths.daemonJson, info);
  } catch (err) {
    if (err instanceof BskError) throw err;
    throw untrustedHome(paths.home, `cannot check ${paths.home}: ${(err as Error).message}`);
  }
}
