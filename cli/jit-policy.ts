/**
 * JavaScriptCore's tier-up policy for this process (`Bun.unsafe.setJITPolicy`). A CLI call runs its code about once:
 * compiling it costs more than it saves (2–6% of a warm `bsk status`'s cpu, cli/README.md, the hot path), so main.ts
 * scales the thresholds before it loads run.ts (`bsk version` runs too little to gain). What runs for hours (the daemon, server mode, `bsk mcp`) puts the normal
 * policy back before it starts serving. A loop that runs long enough is still compiled under the scaled one.
 */
export const RUN_ONCE_JIT_POLICY = 1000;

export function runOnceJit(): void {
  Bun.unsafe.setJITPolicy(RUN_ONCE_JIT_POLICY);
}

export function longLivedJit(): void {
  Bun.unsafe.setJITPolicy(1);
}
