/**
 * The npm packages of one release, written as folders ready for `npm publish` (platform packages first):
 *   @bsk-dev/bsk-<platform>   one per release target, holding only bin/bsk (bin/bsk.exe), with npm's `os` and `cpu`
 *                             set so that npm installs just the one that fits the machine
 *   @bsk-dev/bsk              what people install (`npm i -g @bsk-dev/bsk`): every platform package as an optional
 *                             dependency at this exact version, and the `bsk` command (scripts/release/npm/: a Node
 *                             entry, replaced at install by a link to the native binary where npm allows it)
 * tests/integration/npm-install.test.ts publishes them to a real local registry and installs from it.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binaryName, NPM_PACKAGE, npmPlatformPackage, REPOSITORY, type Platform } from "../../protocol/release.ts";

const TEMPLATES = join(import.meta.dir, "npm");
const NPM_OS: Record<string, string> = { linux: "linux", darwin: "darwin", windows: "win32" };
const DESCRIPTION = "Let any shell-capable AI agent use the person's own logged-in browser, safely, in its own Agent Window.";

function npmPlatform(platform: Platform): { os: string; cpu: string } {
  const [os, cpu] = platform.split("-") as [string, string];
  return { os: NPM_OS[os]!, cpu };
}

function common(version: string) {
  return {
    version,
    description: DESCRIPTION,
    repository: { type: "git", url: `git+https://github.com/${REPOSITORY}.git` },
    homepage: `https://github.com/${REPOSITORY}#readme`,
  };
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Writes the packages under `out` and returns their folders, each platform package before the main one. */
export function writeNpmPackages(opts: { version: string; out: string; binaries: Partial<Record<Platform, string>> }): string[] {
  const { version, out, binaries } = opts;
  rmSync(out, { recursive: true, force: true });
  const dirs: string[] = [];
  const table: Record<string, string> = {};
  const optional: Record<string, string> = {};
  for (const [platform, binary] of Object.entries(binaries) as [Platform, string][]) {
    const name = npmPlatformPackage(platform);
    const { os, cpu } = npmPlatform(platform);
    table[`${os} ${cpu}`] = name;
    optional[name] = version;
    const dir = join(out, platform);
    mkdirSync(join(dir, "bin"), { recursive: true });
    const bin = join(dir, "bin", binaryName(platform));
    copyFileSync(binary, bin);
    chmodSync(bin, 0o755);
    writeJson(join(dir, "package.json"), {
      name,
      ...common(version),
      description: `bsk's binary for ${platform}; install ${NPM_PACKAGE}, which picks it.`,
      os: [os],
      cpu: [cpu],
      files: ["bin/"],
      preferUnplugged: true,
    });
    dirs.push(dir);
  }
  const main = join(out, "bsk");
  mkdirSync(join(main, "bin"), { recursive: true });
  const fill = (text: string) =>
    text
      .replace('"__NAME__"', JSON.stringify(NPM_PACKAGE))
      .replace('"__VERSION__"', JSON.stringify(version))
      .replace("__PACKAGES__", JSON.stringify(table));
  writeFileSync(join(main, "bin/native.js"), fill(readFileSync(join(TEMPLATES, "native.js"), "utf8")));
  writeFileSync(join(main, "bin/install.js"), readFileSync(join(TEMPLATES, "install.js")));
  writeFileSync(join(main, "bin/bsk"), readFileSync(join(TEMPLATES, "bsk.js")));
  chmodSync(join(main, "bin/bsk"), 0o755);
  writeJson(join(main, "package.json"), {
    name: NPM_PACKAGE,
    ...common(version),
    bin: { bsk: "bin/bsk" },
    scripts: { postinstall: "node bin/install.js" },
    optionalDependencies: optional,
    files: ["bin/"],
  });
  writeFileSync(
    join(main, "README.md"),
    `# ${NPM_PACKAGE}\n\n${DESCRIPTION}\n\n\`npm i -g ${NPM_PACKAGE}\`, then \`bsk doctor\`. See https://github.com/${REPOSITORY}#readme.\n`,
  );
  dirs.push(main);
  return dirs;
}
