/**
 * What the lane proves of a macOS binary on Linux (no Mac here to run it): a thin Mach-O executable of the right
 * CPU, whose embedded ad-hoc signature verifies (every page hash, the special slots, LC_CODE_SIGNATURE and
 * __LINKEDIT), as macOS checks it at launch.
 */
import { readFileSync } from "node:fs";
import { verifyCodeSignature } from "../release/codesign-verify.ts";
import { SIGNING_IDENTIFIER } from "../release/build-target.ts";
import { parseMachO } from "../release/macho.ts";
import type { PlatformContext } from "./context.ts";

const MH_EXECUTE = 2;

export function proveDarwin({ bin }: PlatformContext, cpu: "x86_64" | "arm64"): string[] {
  const bytes = new Uint8Array(readFileSync(bin));
  const m = parseMachO(bytes);
  if (m.cpu !== cpu || m.filetype !== MH_EXECUTE)
    throw new Error(`${bin} is a ${m.cpu} Mach-O of file type ${m.filetype}, not a ${cpu} executable`);
  const v = verifyCodeSignature(bytes);
  if (!v.ok) throw new Error(`${bin}'s code signature does not verify: ${v.problems.join("; ")}`);
  if (!v.adhoc || v.identifier !== SIGNING_IDENTIFIER)
    throw new Error(`${bin} is signed as ${v.identifier} (ad hoc: ${v.adhoc}), not bsk's ad-hoc signature`);
  return [`Mach-O ${cpu} executable`, `ad-hoc signature verified (${v.pages} page hashes, special slots, load commands)`];
}
