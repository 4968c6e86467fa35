/**
 * npm run build: the unpacked extension (WXT) into dist/extension and the one `bsk` binary into dist/bsk.
 * Bytecode + ESM halves start-up time (see shared latency notes); --minify trims a few ms more.
 */
import { $ } from "bun";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const dist = join(root, "dist");
mkdirSync(dist, { recursive: true });

async function buildExtension() {
  await $`npx wxt build extension`.cwd(root).quiet();
  rmSync(join(dist, "extension"), { recursive: true, force: true });
  cpSync(join(root, "extension/.output/chrome-mv3"), join(dist, "extension"), { recursive: true });
}

/** Nothing of the working directory is loaded by the binary's runtime (tsconfig and package.json are off by default). */
export const NO_AUTOLOAD = [
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-tsconfig",
  "--no-compile-autoload-package-json",
];

/**
 * `defines` are build-time constants (`--define NAME=<json>`): the release bakes BUILD_RELEASE_BASE_URL in, tests
 * build binaries with BUILD_APP_VERSION and BUILD_RELEASE_PUBKEY (see protocol/version.ts, protocol/release-key.ts).
 */
export async function buildBinary(target?: string, outfile = join(dist, "bsk"), defines: Record<string, string> = {}) {
  const args = [
    "build",
    "--compile",
    "--minify",
    "--bytecode",
    "--format=esm",
    "--splitting",
    // A compiled Bun program would otherwise read .env and bunfig.toml from whatever directory it runs in: a repo an
    // agent works in could set BSK_HOME, or preload its own code into bsk (and into the daemon it starts).
    ...NO_AUTOLOAD,
    "cli/main.ts",
    "--outfile",
    outfile,
  ];
  if (target) args.push(`--target=${target}`);
  for (const [name, value] of Object.entries(defines)) args.push("--define", `${name}=${JSON.stringify(value)}`);
  const proc = Bun.spawn([process.execPath, ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if ((await proc.exited) !== 0) {
    throw new Error(`bun build failed:\n${await new Response(proc.stderr).text()}`);
  }
}

if (import.meta.main) {
  const only = process.argv[2];
  const t0 = performance.now();
  if (only !== "binary") await buildExtension();
  if (only !== "extension") await buildBinary();
  console.log(`built dist/bsk and dist/extension in ${Math.round(performance.now() - t0)} ms`);
}
