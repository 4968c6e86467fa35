import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { ENV_VARS } from "../../protocol/env.ts";
import { DOCS_WITH_SECTIONS, generatedFiles, renderReadme, SECTIONS } from "../../scripts/docs.ts";

const root = join(import.meta.dir, "../..");

test("generated sections of docs/ and SKILL.md match the catalog, errors and env table (run `npm run gen` when this fails)", () => {
  for (const rel of DOCS_WITH_SECTIONS) {
    const text = readFileSync(join(root, rel), "utf8");
    expect(renderReadme(text)).toBe(text);
  }
});

test("every generated section has exactly one home among the docs", () => {
  for (const name of Object.keys(SECTIONS)) {
    const homes = DOCS_WITH_SECTIONS.filter((rel) => readFileSync(join(root, rel), "utf8").includes(`<!-- generated:${name}:start -->`));
    expect([name, homes.length]).toEqual([name, 1]);
  }
});

describe("README.md is for a newcomer", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const linked = (text: string) => [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));

  test("≤ 15 KB", () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15 * 1024);
  });

  test("has what a newcomer needs: install, the MCP clients, a first session, the two commands", () => {
    for (const heading of ["## Install", "## A first session", "## Use it from MCP clients", "## Try it", "## Read more"])
      expect(readme).toContain(`\n${heading}\n`);
    for (const client of ["Claude Code", "Claude Desktop", "Cursor", "Codex", "VS Code"]) expect(readme).toContain(client);
    expect(readme).toContain("npm install && npm run demo");
    expect(readme).toContain("npm install && npm test");
    expect(readme).toContain("bsk install-skill");
    expect(readme).not.toContain("<!-- generated:");
  });

  test("names every package the tests need, the same list .ci/run installs", () => {
    const ci = readFileSync(join(root, ".ci/run"), "utf8").match(/^TEST_PACKAGES="([^"]+)"$/m)?.[1];
    const line = readme.match(/^sudo apt-get install -y (.+)$/m)?.[1];
    expect(ci).toBeTruthy();
    expect(line?.split(/\s+/).sort()).toEqual(ci!.split(/\s+/).sort());
  });

  test("the Node it names is package.json's engines minimum, and every locked package runs on it (no EBADENGINE)", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { node: string } };
    const min = pkg.engines.node.match(/^>=(\d+)\.(\d+)$/);
    expect(min).toBeTruthy();
    expect(readme).toContain(`Node ${min![1]}.${min![2]}+`);
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
      packages: Record<string, { engines?: { node?: string } | string[] }>;
    };
    const node = `${min![1]}.${min![2]}.0`;
    const refusing = Object.entries(lock.packages)
      .map(([path, p]) => [path, !Array.isArray(p.engines) && p.engines?.node] as const)
      .filter(([, range]) => range && !Bun.semver.satisfies(node, range))
      .map(([path, range]) => `${path} wants node ${range}`);
    expect(refusing).toEqual([]);
  });

  test("every page of docs/ is reachable from it", () => {
    const pages = readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md"));
    expect(pages.filter((p) => !linked(readme).includes(`docs/${p}`))).toEqual([]);
  });

  test("every relative link of README.md and docs/ leads to a file", () => {
    const broken: string[] = [];
    for (const rel of ["README.md", ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`)]) {
      const text = readFileSync(join(root, rel), "utf8");
      for (const link of linked(text)) if (!existsSync(join(root, dirname(rel), link))) broken.push(`${rel}: ${link}`);
    }
    expect(broken).toEqual([]);
  });
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
