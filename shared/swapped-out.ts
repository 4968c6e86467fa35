/**
 * The binaries a Windows update moved aside (`<bin>.old-<n>`, cli/update/swap.ts): Windows cannot delete a running
 * .exe, and the `bsk update` that swapped it runs from it, so they are removed at the next start (the daemon's, and
 * the next update's), best effort: one that still runs keeps its file until it exits and goes at a later start.
 * Only regular files of exactly that name pattern next to `bin` are touched; a link is removed, never followed.
 */
import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export function swappedOutPath(bin: string, n: number): string {
  return `${bin}.old-${n}`;
}

export interface SweepResult {
  removed: string[];
  /** Still there: in use (a process runs from it) or not removable. */
  kept: string[];
}

/** Removes `<bin>.old-<n>` beside `bin`; never throws. */
export function removeSwappedOut(bin: string, remove: (path: string) => void = unlinkSync): SweepResult {
  const result: SweepResult = { removed: [], kept: [] };
  const dir = dirname(bin);
  const prefix = `${basename(bin)}.old-`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return result;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !/^[1-9]\d*$/.test(name.slice(prefix.length))) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (!st.isFile() && !st.isSymbolicLink()) continue;
      remove(path);
      result.removed.push(path);
    } catch {
      result.kept.push(path);
    }
  }
  return result;
}
