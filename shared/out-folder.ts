/**
 * The folder a file is written into is the caller's or root's all the way down: another local user must not lead a
 * write somewhere by a symbolic link (`--out ./shared/shots/x.png` where `shots` is their link to a folder of theirs),
 * nor receive it in a folder they own. Every component of the folder is walked as the kernel walks it
 * (path-walk.ts) and refused (`invalid_params`, reason `untrusted_out_folder`) when it is
 *  - a symbolic link not owned by the caller or root (the caller's and root's own links are followed, their targets
 *    judged the same way: a symlinked home, macOS's /tmp → /private/tmp);
 *  - a folder not owned by the caller or root;
 *  - inside a folder every user may write that lacks the sticky bit (another user could swap it for a link after
 *    this check). Group-writable folders count as their group's: the caller's own group on most systems.
 * A folder that cannot be walked (missing, no permission) is left to the write, which fails on it the same way.
 * Nothing is checked where there are no uids (Windows).
 */
import { statSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { BskError } from "../protocol/errors.ts";
import { walkPath, WalkRefused } from "./path-walk.ts";

export const UNTRUSTED_OUT_FOLDER = "untrusted_out_folder";

function whyNot(st: Stats, uid: number, parent: Stats | undefined): string | null {
  const owner = st.uid === uid || st.uid === 0;
  if (st.isSymbolicLink()) return owner ? null : `a symbolic link of uid ${st.uid}`;
  if (st.isDirectory() && !owner) return `a folder of uid ${st.uid}`;
  if (parent && parent.mode & 0o002 && !(parent.mode & 0o1000)) return "in a folder every user may write, without the sticky bit";
  return null;
}

/** Refuses (invalid_params, untrusted_out_folder) writing `path` when its folder is not the caller's or root's. */
export function checkOutFolder(path: string): void {
  judgeFolder(dirname(path), path);
}

/** The same for an --out given before a call: a folder (a new file goes in it) or a file's path. */
export function checkOutPath(path: string): void {
  let folder = dirname(path);
  try {
    if (statSync(path).isDirectory()) folder = path;
  } catch {
    /* no such file yet: its folder takes it */
  }
  judgeFolder(folder, path);
}

function judgeFolder(folder: string, path: string): void {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid === undefined) return;
  const folders = new Map<string, Stats>();
  try {
    walkPath(folder, ({ path: at, st }) => {
      folders.set(at, st);
      return whyNot(st, uid, at === "/" ? undefined : folders.get(dirname(at)));
    });
  } catch (err) {
    if (!(err instanceof WalkRefused)) return;
    throw new BskError("invalid_params", `refusing to write ${path}: ${err.at} is ${err.why}`, {
      hint: "Write into a folder of your own: bsk follows no other user's symbolic link and writes into no folder another user owns or could swap.",
      data: { reason: UNTRUSTED_OUT_FOLDER, path, folder: err.at, why: err.why },
    });
  }
}
