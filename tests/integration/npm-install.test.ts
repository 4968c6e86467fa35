/**
 * Installing bsk with npm, end to end: the release's npm packages (scripts/release/npm.ts) published to a real
 * local registry (Verdaccio, tests/npm/registry.mjs, no uplink) and installed with `npm i -g` into fresh prefixes.
 * This machine's package holds the real dist/bsk; the other four targets' packages hold a stand-in file, so npm's
 * pick by os and cpu is what keeps them out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, existsSync, openSync, readFileSync, readSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { currentPlatform, NPM_PACKAGE, npmPlatformPackage, PLATFORMS, type Platform } from "../../protocol/release.ts";
import { APP_VERSION } from "../../protocol/version.ts";
import { removeTree } from "../../shared/fs-util.ts";
import { writeNpmPackages } from "../../scripts/release/npm.ts";
import { ROOT } from "./harness.ts";
import { tempDir } from "../temp.ts";

/** npm packs, publishes and installs a ~110 MB binary: minutes on a loaded 2-core machine. */
const T = 300_000;
const here = currentPlatform()!;
const work = tempDir("bsk-npm-");
let registry: Bun.Subprocess<"ignore", "pipe", "pipe"> | undefined;
let url = "";

/** npm's own environment for these calls: none of the outer `npm test`'s npm_* settings, a private cache and rc. */
function npmEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k) && !k.startsWith("BSK_")) env[k] = v;
  return {
    ...env,
    NPM_CONFIG_USERCONFIG: join(work, "npmrc"),
    NPM_CONFIG_CACHE: join(work, "npm-cache"),
    NPM_CONFIG_UPDATE_NOTIFIER: "false",
    NPM_CONFIG_AUDIT: "false",
    NPM_CONFIG_FUND: "false",
    ...extra,
  };
}

async function run(cmd: string[], env: Record<string, string> = npmEnv()) {
  const proc = Bun.spawn(cmd, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function npm(args: string[]) {
  const r = await run(["npm", ...args, "--registry", url]);
  if (r.code !== 0) throw new Error(`npm ${args.join(" ")} exited ${r.code}:\n${r.stdout}${r.stderr}`);
  return r;
}

/** Publishes one release's packages, each platform package before the one that depends on them. */
async function publish(version: string, binaries: Partial<Record<Platform, string>>, tag = "latest") {
  for (const dir of writeNpmPackages({ version, out: join(work, `pkg-${version}`), binaries })) await npm(["publish", dir, "--tag", tag]);
}

function firstBytes(path: string, n: number): string {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, 0)).toString("latin1");
  } finally {
    closeSync(fd);
  }
}

/** The command npm linked into a prefix, and what runs bsk from it with a private home. */
function installed(prefix: string) {
  const command = join(prefix, "bin", "bsk");
  const home = join(prefix, "bsk-home");
  const env = npmEnv({ BSK_HOME: home, BSK_PORT: "0", BSK_NATIVE_HOST: "off", BSK_AUTO_UPDATE: "off", BSK_DOCTOR_BROWSER_WAIT_MS: "0" });
  return { command, env, bsk: (args: string[]) => run([command, ...args], env) };
}

beforeAll(async () => {
  const storage = join(work, "registry");
  const reg = Bun.spawn(["node", join(ROOT, "tests/npm/registry.mjs"), storage], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  registry = reg;
  const reader = reg.stdout.getReader();
  let said = "";
  while (!said.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the registry ended: ${said}${await new Response(reg.stderr).text()}`);
    said += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  url = `http://127.0.0.1:${JSON.parse(said.split("\n")[0]!).port}/`;
  // Verdaccio lets anyone publish here; npm still wants a token for the registry before it publishes.
  writeFileSync(join(work, "npmrc"), `//127.0.0.1:${new URL(url).port}/:_authToken=test\n`);
  const stand = join(work, "stand-in");
  writeFileSync(stand, "not this machine's binary\n");
  const binaries: Partial<Record<Platform, string>> = {};
  for (const p of PLATFORMS) binaries[p] = p === here ? join(ROOT, "dist/bsk") : stand;
  await publish(APP_VERSION, binaries);
}, T);

afterAll(async () => {
  registry?.kill();
  await registry?.exited;
  for (const prefix of ["global", "no-scripts", "bad"]) {
    const { bsk } = installed(join(work, prefix));
    if (existsSync(join(work, prefix, "bsk-home"))) await bsk(["daemon", "stop"]);
  }
  removeTree(work);
});

describe("npm i -g from a registry", () => {
  test(
    "installs this machine's binary only, and the bsk command is that binary: no Node on an agent's call",
    async () => {
      const prefix = join(work, "global");
      await npm(["i", "-g", NPM_PACKAGE, "--prefix", prefix]);
      const { command, bsk } = installed(prefix);
      const target = realpathSync(command);
      expect(target).toContain(join(npmPlatformPackage(here), "bin"));
      expect(firstBytes(target, 4)).toBe("\x7fELF");
      const modules = join(prefix, "lib/node_modules", NPM_PACKAGE, "node_modules");
      for (const p of PLATFORMS) expect(existsSync(join(modules, npmPlatformPackage(p)))).toBe(p === here);
      const version = await bsk(["version"]);
      expect(version.code).toBe(0);
      expect(version.stdout).toStartWith(`bsk ${APP_VERSION} `);
      // doctor from the npm install: its daemon starts from the binary; no install line (nothing to say).
      const doctor = await bsk(["doctor", "--json"]);
      const report = JSON.parse(doctor.stdout);
      expect(report.checks.find((c: { name: string }) => c.name === "daemon").status).toBe("ok");
      expect(report.checks.some((c: { name: string }) => c.name === "install")).toBe(false);
    },
    T,
  );

  test(
    "npm run without install scripts: the command is npm's Node entry, it runs the binary, and doctor says what that costs",
    async () => {
      const prefix = join(work, "no-scripts");
      await npm(["i", "-g", NPM_PACKAGE, "--prefix", prefix, "--ignore-scripts"]);
      const { command, bsk } = installed(prefix);
      expect(firstBytes(realpathSync(command), 19)).toBe("#!/usr/bin/env node");
      const version = await bsk(["version"]);
      expect(version.stdout).toStartWith(`bsk ${APP_VERSION} `);
      const report = JSON.parse((await bsk(["doctor", "--json"])).stdout);
      const line = report.checks.find((c: { name: string }) => c.name === "install");
      expect(line.status).toBe("warn");
      expect(line.detail).toContain("Node entry");
      expect(line.hint).toContain(`npm rebuild -g ${NPM_PACKAGE}`);
      // The hint's repair: npm rebuild runs the install script, which links the command to the binary.
      await npm(["rebuild", "-g", NPM_PACKAGE, "--prefix", prefix]);
      expect(firstBytes(realpathSync(command), 4)).toBe("\x7fELF");
    },
    T,
  );

  test(
    "a platform binary that does not answer as this version is never linked in; a missing one is named with the fix",
    async () => {
      const bad = "0.0.1-bad";
      const liar = join(work, "liar");
      writeFileSync(liar, "#!/bin/sh\necho 'bsk 6.6.6 (protocol 0.0)'\n");
      await publish(bad, { [here]: liar }, "bad");
      const prefix = join(work, "bad");
      const done = await npm(["i", "-g", `${NPM_PACKAGE}@${bad}`, "--prefix", prefix, "--foreground-scripts"]);
      expect(done.stderr + done.stdout).toContain(`did not answer as bsk ${bad}`);
      const { command } = installed(prefix);
      expect(firstBytes(realpathSync(command), 19)).toBe("#!/usr/bin/env node");

      // A platform package npm could not fetch: npm skips a failed optional dependency without a word.
      const gone = "0.0.2-gone";
      const dirs = writeNpmPackages({ version: gone, out: join(work, `pkg-${gone}`), binaries: { [here]: liar } });
      await npm(["publish", dirs.at(-1)!, "--tag", "gone"]);
      const omitted = join(work, "omitted");
      await npm(["i", "-g", `${NPM_PACKAGE}@${gone}`, "--prefix", omitted]);
      const ran = await installed(omitted).bsk(["version"]);
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain(`error: ${npmPlatformPackage(here)}, which holds bsk's binary for`);
      expect(ran.stderr).toContain(`hint: npm left out the optional dependency`);
      expect(readFileSync(command, "utf8")).toContain("nativeBinary");
    },
    T,
  );
});
