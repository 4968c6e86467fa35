/**
 * Every target the bench judges a measure by, in one place: the tables print these and each result file copies them,
 * so the README, docs/development.md and bench/results.json never carry a target of their own.
 *
 * Whole-process times of bsk's own calls are judged above the floor (an empty program compiled with the same
 * `bun build --compile` flags, timed in the same pairs): what the runtime costs to start is not bsk's to win back,
 * and an absolute target under that floor could never be met. Against agent-browser the target is a ratio, both
 * tools in the same run.
 */
export const TARGETS = {
  /** bsk's own cost over the empty program, p50 of the pairwise differences, ms (`--floor`; issue 2's, now above the floor). */
  floor: {
    "bsk status (warm)": 12,
    "bsk tab list (warm)": 15,
    "bsk evaluate 1+1 (warm)": 20,
  } as Record<string, number>,
  /** Whole-process p50, ms: see-and-act on the bench's own fixture pages (issue 2). */
  local: {
    "bsk snapshot (typical page, ~300 elements)": 40,
    "bsk snapshot (10,000 elements, default budget)": 400,
    "bsk click (button, effect: dom changed)": 30,
    "bsk evaluate 1+1 (page logs + fetches 50×/s)": 20,
    "bsk session start": 500,
  } as Record<string, number>,
  /** bsk p50 / agent-browser p50, same call, same run. Issue 14 for reads, issue 38 for actions. */
  peer: {
    read: { cli: 1.3, mcp: 1.3 },
    evaluate: { cli: 1.2, mcp: 1.2 },
    snapshot: { cli: 1.0, mcp: 1.0 },
    action: { cli: 1.25, mcp: 1.0 },
  },
  /** Cold start → first navigated page, bsk p50 / agent-browser p50 in the same run (issue 38). */
  cold: {
    /** (a) the browser runs, neither tool's daemon does. */
    browser_running: 0.8,
    /** (b) nothing runs: each tool starts its browser too. */
    nothing_running: 1.0,
  },
  /** bsk's snapshot tokens / Playwright's AI snapshot's, same page. */
  snapshot_tokens_ratio: 0.6,
} as const;

export type PeerKind = keyof typeof TARGETS.peer;
