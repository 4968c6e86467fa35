/**
 * One release binary for one platform, as the release ships it and the platform lane proves it: cross-compiled by
 * Bun (scripts/build.ts) and, for macOS, ad-hoc signed and verified here (codesign.ts): a darwin binary whose
 * signature does not verify is an error, never an asset.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Platform } from "../../protocol/release.ts";
import { buildBinary } from "../build.ts";
import { adhocSign } from "./codesign.ts";
import { type Verification, verifyCodeSignature } from "./codesign-verify.ts";

/** The identifier in the CodeDirectory of bsk's macOS binaries. */
export const SIGNING_IDENTIFIER = "bsk";

/** Replaces `file`'s code signature with a fresh ad-hoc one and verifies it; throws when it does not verify. */
export function signMachOFile(file: string, identifier = SIGNING_IDENTIFIER): Verification {
  const signed = adhocSign(readFileSync(file), identifier);
  const check = verifyCodeSignature(signed);
  if (!check.ok) throw new Error(`the signature written for ${file} does not verify: ${check.problems.join("; ")}`);
  writeFileSync(`${file}.signing`, signed, { mode: 0o755 });
  renameSync(`${file}.signing`, file);
  return check;
}

/** Builds bsk for `platform` into `file` (signed when it is a macOS binary). */
export async function buildReleaseBinary(
  platform: Platform,
  file: string,
  defines: Record<string, string> = {},
): Promise<{ signature?: Verification }> {
  await buildBinary(`bun-${platform}`, file, defines);
  if (!platform.startsWith("darwin-")) return {};
  return { signature: signMachOFile(file) };
}
