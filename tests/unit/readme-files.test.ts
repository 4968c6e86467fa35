/**
 * The folder READMEs of cli/ and daemon/ name every file they hold: a file the README's table does not list fails
 * here, and so does a listed one that no longer exists.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

function sourceFiles(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) return sourceFiles(dir, path);
    return /\.(ts|tsx)$/.test(e.name) ? [path] : [];
  });
}

/** The backticked names in the first cell of each table row: `a.ts`, `b.ts` | what they hold |. */
function listedFiles(readme: string): string[] {
  return readme
    .split("\n")
    .filter((l) => l.startsWith("| `"))
    .flatMap((l) => [...l.split("|")[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

describe.each(["cli", "daemon"])("%s/README.md", (folder) => {
  const dir = join(ROOT, folder);
  const listed = listedFiles(readFileSync(join(dir, "README.md"), "utf8"));

  test("lists every file of the folder", () => {
    expect(sourceFiles(dir).filter((f) => !listed.includes(f))).toEqual([]);
  });

  test("lists no file that does not exist", () => {
    expect(listed.filter((f) => !existsSync(join(dir, f)))).toEqual([]);
  });
});
