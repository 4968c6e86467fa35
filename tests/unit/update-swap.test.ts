/**
 * The update's swap on Windows, where a running .exe can be renamed but not replaced or deleted: the old one is
 * moved aside to a free `<bin>.old-<n>`, rolled back by renaming, and removed at the next start (best effort). The
 * platform is injected, so the order is checked here on Linux; the lane (scripts/platform/windows-x64.ts) swaps a
 * running bsk.exe under Wine.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { previousPath, restorePrevious, swapIn } from "../../cli/update/swap.ts";
import { removeSwappedOut, swappedOutPath } from "../../shared/swapped-out.ts";
import { tempDir } from "../temp.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function installed(): { dir: string; bin: string; staged: string } {
  const dir = tempDir("bsk-swap-");
  dirs.push(dir);
  const bin = join(dir, "bsk.exe");
  const staged = join(dir, ".bsk.exe.0123.tmp");
  writeFileSync(bin, "old");
  writeFileSync(staged, "new");
  return { dir, bin, staged };
}

const text = (path: string) => readFileSync(path, "utf8");

test("windows: the running exe is renamed aside to <bin>.old-1, the new one takes its name, no .previous", () => {
  const { dir, bin, staged } = installed();
  const aside = swapIn(bin, staged, "win32");
  expect(aside).toBe(`${bin}.old-1`);
  expect(text(bin)).toBe("new");
  expect(text(aside)).toBe("old");
  expect(readdirSync(dir).sort()).toEqual(["bsk.exe", "bsk.exe.old-1"]);
  expect(existsSync(previousPath(bin))).toBe(false);
});

test("windows: an aside still held by a running old bsk keeps its name; the next one takes the next number", () => {
  const { bin, staged } = installed();
  writeFileSync(swappedOutPath(bin, 1), "older, still running");
  const aside = swapIn(bin, staged, "win32");
  expect(aside).toBe(`${bin}.old-2`);
  expect(text(`${bin}.old-1`)).toBe("older, still running");
  expect(text(aside)).toBe("old");
});

test("windows: when the new one cannot take the name, the old one is renamed back", () => {
  const { dir, bin, staged } = installed();
  rmSync(staged);
  expect(() => swapIn(bin, staged, "win32")).toThrow();
  expect(text(bin)).toBe("old");
  expect(readdirSync(dir)).toEqual(["bsk.exe"]);
});

test("windows: rollback renames the refused new exe aside (its killed daemon may still hold it) and the old one back", () => {
  const { dir, bin, staged } = installed();
  const aside = swapIn(bin, staged, "win32");
  restorePrevious(bin, aside, "win32");
  expect(text(bin)).toBe("old");
  // .old-1 was the old exe's while the new one went aside.
  expect(readdirSync(dir).sort()).toEqual(["bsk.exe", "bsk.exe.old-2"]);
  expect(text(`${bin}.old-2`)).toBe("new");
});

test("unix: unchanged: the old binary is kept as <bin>.previous and rolled back from there", () => {
  const { dir, bin, staged } = installed();
  const previous = swapIn(bin, staged, "linux");
  expect(previous).toBe(previousPath(bin));
  expect([text(bin), text(previous)]).toEqual(["new", "old"]);
  restorePrevious(bin, previous, "linux");
  expect(text(bin)).toBe("old");
  expect(readdirSync(dir)).toEqual(["bsk.exe"]);
});

test("the next start removes <bin>.old-<n> and nothing else; one still in use is kept and reported", () => {
  const { dir, bin, staged } = installed();
  rmSync(staged);
  const victim = join(dir, "victim.txt");
  writeFileSync(victim, "the person's file");
  for (const name of [
    "bsk.exe.old-1",
    "bsk.exe.old-2",
    "bsk.exe.old-12",
    "bsk.exe.previous",
    "bsk.exe.old-x",
    "bsk.exe.old-",
    "other.exe.old-1",
  ])
    writeFileSync(join(dir, name), name);
  mkdirSync(join(dir, "bsk.exe.old-3"));
  // A planted link of the pattern: the link goes, what it points at stays.
  symlinkSync(victim, join(dir, "bsk.exe.old-4"));

  const inUse = join(dir, "bsk.exe.old-2");
  const swept = removeSwappedOut(bin, (path) => {
    if (path === inUse) throw Object.assign(new Error("EBUSY: resource busy or locked"), { code: "EBUSY" });
    rmSync(path);
  });
  expect(swept.kept).toEqual([inUse]);
  expect(swept.removed.sort()).toEqual(["bsk.exe.old-1", "bsk.exe.old-12", "bsk.exe.old-4"].map((n) => join(dir, n)));
  expect(readdirSync(dir).sort()).toEqual(
    [
      "bsk.exe",
      "bsk.exe.old-",
      "bsk.exe.old-2",
      "bsk.exe.old-3",
      "bsk.exe.old-x",
      "bsk.exe.previous",
      "other.exe.old-1",
      "victim.txt",
    ].sort(),
  );
  expect(text(victim)).toBe("the person's file");
  expect(removeSwappedOut(join(dir, "missing/bsk.exe"))).toEqual({ removed: [], kept: [] });
});
