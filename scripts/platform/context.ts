/**
 * What the platform lane (scripts/platform-smoke.ts) hands each target's proof, `scripts/platform/<target>.ts`:
 *   export async function prove(ctx: PlatformContext): Promise<string[]>
 * It returns the things it proved, in a few words each, and throws an Error saying what failed (and how to fix it)
 * when one fails. It cleans up what it started and made, also when it fails.
 */
export interface PlatformContext {
  /** The repository's root. */
  root: string;
  /** The target's binary, built and (macOS) signed as the release builds it, under dist/platform/<target>/. */
  bin: string;
  /** A progress line (the lane indents it under the target). */
  log: (line: string) => void;
}
