/**
 * A path resolved the way the kernel resolves it, one component at a time (lstat, readlink), so a caller can judge
 * every folder and symbolic link on the way instead of only where realpath ends. Used where bsk must not be led
 * somewhere by a link: out paths (out-folder.ts) and the local files a session may open (daemon/local-files.ts).
 * Only node:fs; Windows (no uids) is the callers' business.
 */
import { lstatSync, readlinkSync, type Stats } from "node:fs";
import { isAbsolute, resolve } from "node:path";

/** Linux's own limit on links followed in one lookup (ELOOP past it). */
const MAX_LINKS = 40;

/** One component met on the way: its path as reached (links before it resolved) and its lstat. */
export interface Step {
  path: string;
  st: Stats;
}

/** A reason the walk stops: the judge's, or `loop` (too many links). Any fs error (ENOENT, EACCES) is thrown. */
export class WalkRefused extends Error {
  constructor(
    readonly why: string,
    readonly at: string,
  ) {
    super(`${at}: ${why}`);
  }
}

/**
 * Resolves `path` (absolute, or against the working directory) component by component and returns the final
 * path. `judge` sees every component (`/` first) before it is used, links before they are followed; a string it
 * returns refuses the walk (WalkRefused). `..` steps back from where the walk is, as the kernel does.
 */
export function walkPath(path: string, judge: (step: Step) => string | null): string {
  const check = (p: string) => {
    const st = lstatSync(p);
    const why = judge({ path: p, st });
    if (why) throw new WalkRefused(why, p);
    return st;
  };
  check("/");
  let at = "/";
  // Not path.resolve: it would drop `x/..` before `x` is known not to be a link.
  let rest = (isAbsolute(path) ? path : `${process.cwd()}/${path}`).split("/").filter(Boolean);
  let links = 0;
  while (rest.length) {
    const name = rest.shift()!;
    if (name === ".") continue;
    if (name === "..") {
      at = resolve(at, "..");
      continue;
    }
    const next = at === "/" ? `/${name}` : `${at}/${name}`;
    const st = check(next);
    if (!st.isSymbolicLink()) {
      at = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new WalkRefused("too many symbolic links", next);
    const target = readlinkSync(next);
    if (isAbsolute(target)) at = "/";
    rest = [...target.split("/").filter(Boolean), ...rest];
  }
  return at;
}
