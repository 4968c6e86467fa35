/** darwin-arm64: Mach-O structure and signature (scripts/platform/darwin.ts). */
import type { PlatformContext } from "./context.ts";
import { proveDarwin } from "./darwin.ts";

export async function prove(ctx: PlatformContext): Promise<string[]> {
  return proveDarwin(ctx, "arm64");
}
