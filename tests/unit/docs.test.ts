import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ENV_VARS } from "../../protocol/env.ts";
import { DOCS_WITH_SECTIONS, generatedFiles, renderReadme } from "../../scripts/docs.ts";

const root = join(import.meta.dir, "../..");

test("generated sections of README.md and SKILL.md match the catalog, errors and env table (run `npm run gen` when this fails)", () => {
  for (const rel of DOCS_WITH_SECTIONS) {
    const text = readFileSync(join(root, rel), "utf8");
    expect(renderReadme(text)).toBe(text);
  }
});

test("generated skill references match the catalog (run `npm run gen` when this fails)", () => {
  for (const [rel, text] of Object.entries(generatedFiles(root))) expect(readFileSync(join(root, rel), "utf8")).toBe(text);
});

test("SKILL.md has agentskills.io frontmatter and stays compact (≤ 12 KB)", () => {
  const skill = readFileSync(join(root, "skill/SKILL.md"), "utf8");
  expect(skill).toMatch(/^---\nname: browser-skill\ndescription: .{40,}\n---\n/);
  expect(Buffer.byteLength(skill)).toBeLessThanOrEqual(12 * 1024);
});

test("every BSK_* variable the code reads is documented in protocol/env.ts", () => {
  const documented = new Set(ENV_VARS.map((v) => v.name));
  const used = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|tsx)$/.test(name)) for (const m of readFileSync(path, "utf8").matchAll(/\bBSK_[A-Z_]+\b/g)) used.add(m[0]);
    }
  };
  for (const dir of ["cli", "daemon", "extension", "scripts", "protocol"]) walk(join(root, dir));
  const missing = [...used].filter((v) => !documented.has(v));
  expect(missing).toEqual([]);
});
