/**
 * Which file: URLs a local session may open, judged on the path the OS would open (system.file_url, asked by the
 * extension: it cannot resolve a path, the daemon can). The path is walked component by component (shared/path-walk.ts)
 * and refused when any step is under /proc, /sys or /dev (`/proc/self/root` is every path again), is a symbolic link
 * not owned by root (a link anyone else made could point anywhere, and be swapped at any time; root's, such as macOS's
 * /tmp → /private/tmp, are followed), or is $BSK_HOME itself, recognised by its device and inode however it is
 * named; the file must not be a hard link to trust.key or the ledger's key either. Anything that cannot be judged
 * (no such file, no permission, a host in the URL) is refused. Not covered: a folder on the path that the agent can
 * write, swapped for a link between this check and the browser's open (the browser cannot open without following).
 */
import { realpathSync, statSync, type Stats } from "node:fs";
import { fileURLToPath } from "node:url";
import { METHODS, type Result } from "../protocol/catalog.ts";
import { BskError, toErrorBody } from "../protocol/errors.ts";
import type { RequestFrame } from "../protocol/frames.ts";
import type { FileUrlRule } from "../protocol/methods/system.ts";
import type { HomePaths } from "../shared/home.ts";
import { walkPath, WalkRefused } from "../shared/path-walk.ts";

const SYSTEM_FOLDERS = ["/proc", "/sys", "/dev"];

export interface FileUrlJudgement {
  rule: FileUrlRule | null;
  /** The path judged: the resolved one when it could be resolved. */
  path?: string;
  /** Why, in words (for the refusal's message). */
  detail?: string;
}

const below = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);
const sameFile = (a: Pick<Stats, "dev" | "ino">, b: Stats) => a.dev === b.dev && a.ino === b.ino;
const NO_FILE = { dev: -1, ino: -1 };

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function refused(rule: FileUrlRule, detail: string, path?: string): FileUrlJudgement {
  return { rule, detail, ...(path !== undefined && { path }) };
}

/** What a local session may do with `url` (a file: URL), given this daemon's $BSK_HOME and its secret files. */
export function judgeFileUrl(url: string, home: string, secrets: readonly string[]): FileUrlJudgement {
  let literal: string;
  try {
    literal = fileURLToPath(url);
  } catch (err) {
    return refused("unresolved", `not a local file path: ${(err as Error).message}`);
  }
  const homeStat = statOrNull(home);
  if (!homeStat) return refused("unresolved", `bsk's folder ${home} cannot be read, so nothing can be judged against it`);
  if (process.platform === "win32") return judgeByRealpath(literal, home);
  let resolved: string;
  try {
    resolved = walkPath(literal, ({ path, st }) => {
      if (SYSTEM_FOLDERS.some((f) => below(path, f))) return "system_files";
      if (sameFile(st, homeStat)) return "bsk_home";
      if (st.isSymbolicLink() && st.uid !== 0) return "linked_path";
      return null;
    });
  } catch (err) {
    if (err instanceof WalkRefused && err.why !== "too many symbolic links")
      return refused(err.why as FileUrlRule, DETAILS[err.why as keyof typeof DETAILS](err.at), literal);
    return refused("unresolved", `${literal} cannot be resolved: ${(err as Error).message}`, literal);
  }
  // No link is left at the end of a resolved path: stat is lstat here.
  const st = statOrNull(resolved);
  if (!st) return refused("unresolved", `${resolved} is gone`, resolved);
  if (st.nlink > 1 && secrets.some((secret) => sameFile(statOrNull(secret) ?? NO_FILE, st)))
    return refused("bsk_home", `${resolved} is another name for one of bsk's secret files`, resolved);
  return { rule: null, path: resolved };
}

const DETAILS = {
  system_files: (at: string) => `${at} is below /proc, /sys or /dev, which sessions never open`,
  bsk_home: (at: string) => `${at} is bsk's own folder ($BSK_HOME)`,
  linked_path: (at: string) => `${at} is a symbolic link (not root's); open the file by its real path`,
} as const;

/** Windows: no uids to judge links by; the path must be its own real path, and not below $BSK_HOME. */
function judgeByRealpath(literal: string, home: string): FileUrlJudgement {
  const norm = (p: string) =>
    p
      .replace(/[\\/]+/g, "/")
      .replace(/\/$/, "")
      .toLowerCase();
  let real: string;
  let realHome: string;
  try {
    real = realpathSync.native(literal);
    realHome = realpathSync.native(home);
  } catch (err) {
    return refused("unresolved", `${literal} cannot be resolved: ${(err as Error).message}`, literal);
  }
  if (norm(real) !== norm(literal)) return refused("linked_path", DETAILS.linked_path(literal), real);
  if (below(norm(real), norm(realHome))) return refused("bsk_home", DETAILS.bsk_home(real), real);
  return { rule: null, path: real };
}

/** The extension's system.file_url on its link: answered only for a local browser (a remote one's files are not here). */
export function answerFileUrl(frame: RequestFrame, paths: HomePaths, remoteDevice: boolean): object {
  if (remoteDevice)
    return {
      id: frame.id,
      error: toErrorBody(
        new BskError("permission_denied", "a server's daemon judges no local files: they are on the browser's computer", {
          data: { reason: "remote_session" },
        }),
      ),
    };
  const parsed = METHODS["system.file_url"].params().safeParse(frame.params ?? {});
  if (!parsed.success) return { id: frame.id, error: toErrorBody(new BskError("invalid_params", "system.file_url: params.url: a string")) };
  const result: Result<"system.file_url"> = judgeFileUrl(parsed.data.url, paths.home, [paths.secret, `${paths.ledgerDir}/key`]);
  return { id: frame.id, result };
}
