/**
 * bun scripts/platform-smoke.ts <target...>: the platform lane. Builds each release target as the release does
 * (scripts/release/build-target.ts: macOS binaries signed and verified) into dist/platform/<target>/, then runs
 * scripts/platform/<target>.ts's `prove` (see scripts/platform/context.ts), and prints one line per target with
 * what was proven. Exits 1 when any target failed. scripts/platform/setup-qemu.sh installs what linux-arm64 needs.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { binaryName, PLATFORMS, type Platform } from "../protocol/release.ts";
import type { PlatformContext } from "./platform/context.ts";
import { buildReleaseBinary } from "./release/build-target.ts";

const root = join(import.meta.dir, "..");
const targets = process.argv.slice(2);
const unknown = targets.filter((t) => !(PLATFORMS as readonly string[]).includes(t));
if (!targets.length || unknown.length) {
  console.error(
    `error: ${targets.length ? `unknown target ${unknown.join(", ")}` : "no target given"}\nhint: bun scripts/platform-smoke.ts <target...>, from: ${PLATFORMS.join(" ")}`,
  );
  process.exit(1);
}

const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
let failed = 0;
for (const target of targets as Platform[]) {
  const t0 = performance.now();
  const proof = join(import.meta.dir, "platform", `${target}.ts`);
  const log = (line: string) => console.log(`  ${target}: ${line}`);
  try {
    if (!existsSync(proof)) throw new Error(`no proof for ${target} yet (scripts/platform/${target}.ts)`);
    const { prove } = (await import(proof)) as { prove?: (ctx: PlatformContext) => Promise<string[]> };
    if (typeof prove !== "function") throw new Error(`scripts/platform/${target}.ts exports no prove(ctx)`);
    const dir = join(root, "dist/platform", target);
    mkdirSync(dir, { recursive: true });
    const bin = join(dir, binaryName(target));
    await buildReleaseBinary(target, bin);
    log(`built ${bin.slice(root.length + 1)} in ${seconds(t0)}`);
    const proven = await prove({ root, bin, log });
    console.log(`ok ${target}: ${proven.join(", ")} (${seconds(t0)})`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${target}: ${(err as Error).message} (${seconds(t0)})`);
  }
}
process.exit(failed ? 1 : 0);
