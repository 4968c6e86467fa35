/**
 * Before the CLI connects: the socket and its folder belong to this user alone (docs/security.md, the socket's
 * folder). Another local user who creates the folder first, or listens at the socket's path, must not even receive
 * the link proof's hello. On every call's path, so only node:fs's stat calls and the error table: no node:path, no
 * fs-util (the daemon's side, making the folder, is socket-dir.ts). A Windows named pipe lives in no folder: there is
 * nothing here to check for it.
 */
import { lstatSync, statSync, type Stats } from "node:fs";
import { BskError } from "../protocol/errors.ts";
import { isPipe } from "./home.ts";

/** The folder holding `path` (node:path's dirname for the absolute POSIX paths a socket has). */
function parentOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at === -1 ? "." : at === 0 ? "/" : path.slice(0, at);
}

export const UNTRUSTED_SOCKET = "untrusted_socket";

/** undefined where the OS has no uids (Windows): no socket folder to check there. */
export function myUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/** `read(path)` (lstatSync or statSync), or undefined when there is nothing at `path`. */
export function statOrNone(path: string, read: (p: string) => Stats = lstatSync): Stats | undefined {
  try {
    return read(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** Why `dir` is not a folder only `uid` can enter, or undefined when it is. */
export function folderProblem(dir: string, st: Stats, uid: number): string | undefined {
  if (st.isSymbolicLink()) return `${dir} is a symbolic link, not a folder`;
  if (!st.isDirectory()) return `${dir} is not a folder`;
  if (st.uid !== uid) return `${dir} belongs to uid ${st.uid}, not to you (uid ${uid})`;
  if (st.mode & 0o077) return `${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)})`;
  const parent = parentOf(dir);
  const p = statSync(parent);
  // Whoever may rename entries of the parent could swap the folder after our check.
  if (p.uid !== uid && p.uid !== 0) return `${parent} (holding ${dir}) belongs to uid ${p.uid}, not to you (uid ${uid})`;
  if (p.mode & 0o022 && !(p.mode & 0o1000))
    return `${parent} (holding ${dir}) lets other users replace it (mode ${(p.mode & 0o777).toString(8)}, not sticky)`;
  return undefined;
}

export function untrusted(path: string, why: string, hint: string): BskError {
  return new BskError("permission_denied", `refusing the bsk daemon socket: ${why}`, {
    hint,
    data: { reason: UNTRUSTED_SOCKET, path },
  });
}

export function plantedHint(path: string): string {
  return (
    `Another local user may be posing as the bsk daemon; nothing was sent. Have ${path} removed (it is not yours), ` +
    "or point XDG_RUNTIME_DIR at your own runtime folder, or use a shorter BSK_HOME (the socket then lives in $BSK_HOME/run)."
  );
}

/**
 * Before the CLI connects: false when there is no socket (no daemon), true when folder and socket are this user's;
 * a BskError (permission_denied, reason untrusted_socket) when either belongs to someone else or is open to them.
 */
export function checkSocket(socket: string): boolean {
  const uid = myUid();
  if (uid === undefined || isPipe(socket)) return true;
  try {
    return checkOwned(socket, uid);
  } catch (err) {
    if (err instanceof BskError) throw err;
    throw untrusted(socket, `cannot check ${socket}: ${(err as Error).message}`, plantedHint(parentOf(socket)));
  }
}

function checkOwned(socket: string, uid: number): boolean {
  const dir = parentOf(socket);
  const d = statOrNone(dir);
  if (!d) return false;
  const problem = folderProblem(dir, d, uid);
  if (problem) throw untrusted(dir, problem, plantedHint(dir));
  const s = statOrNone(socket);
  if (!s) return false;
  if (!s.isSocket()) throw untrusted(socket, `${socket} is not a socket`, plantedHint(socket));
  if (s.uid !== uid) throw untrusted(socket, `${socket} belongs to uid ${s.uid}, not to you (uid ${uid})`, plantedHint(socket));
  return true;
}
