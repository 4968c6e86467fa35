/**
 * What one soak run records (tests/load/soak.ts writes it, scripts/soak.ts judges it): every call, every op checked
 * against what the page logged, each session's event stream as delivered, the faults, the person's probe, memory and
 * the size of bsk's home over time. Times are seconds since the run started.
 */

export interface CallRecord {
  t: number;
  /** The worker slot that made the call (a slot starts a new session when its session ended). */
  slot: number;
  session: string;
  method: string;
  /** Wall time of the bsk process, as the agent waits for it. */
  ms: number;
  /** The CLI's own clock at its reply (`timings.cli`: from its process start); absent when it printed none. */
  cli_ms?: number;
  timeout_ms: number;
  ok: boolean;
  code?: string;
  /** The error's message, cut short. */
  message?: string;
  effect_state?: string;
  /** The reply was a JSON object with ok, or an error with a code: the call said what happened or why not. */
  structured: boolean;
}

/** An op whose arrival the page (or the download folder) logs itself, with what the reply and the ledger say. */
export interface OpRecord {
  op_id: string;
  method: string;
  session: string;
  /** The reply's effect_state (absent: the reply was lost). */
  effect_state?: string;
  /** The reply was a result (not an error). */
  reply_ok?: boolean;
  /** The ledger's state at the end of the run (absent: the ledger has no such op). */
  ledger?: string;
  /** How many times the page received it; null: could not be read. */
  received: number | null;
}

/** Per session: clicks carry no token, so their count is checked as a whole. */
export interface ClickTally {
  session: string;
  executed: number;
  unknown: number;
  received: number;
}

export interface EventStream {
  session: string;
  /** Every seq delivered (by --follow, or by the catch-up read a follower does when it comes back). */
  seqs: number[];
  /** The highest seq the daemon has for the session at the end. */
  last: number;
  /** Sum of the counts of `events.lost` entries (events that never reached the daemon, so never got a seq). */
  lost: number;
}

export interface FaultRecord {
  t: number;
  kind: string;
  /** Whether the fault was injected (false: the injection itself failed; note says why). */
  injected: boolean;
  note?: string;
}

export interface MemorySample {
  t: number;
  /** The daemon's pid: a restarted daemon is a new segment of the slope. */
  daemon_pid?: number;
  daemon_rss_mb?: number;
  /** The daemon's RSS and live JS heap right after its last collection (logged since the sample before). */
  daemon_rss_gc_mb?: number;
  daemon_heap_mb?: number;
  /** The service worker's target id: a restarted worker is a new segment. */
  worker?: string;
  worker_heap_mb?: number;
  home_bytes: number;
  /** How long `bsk version` took (a process that asks nobody anything): what the loaded machine alone costs a call. */
  cli_floor_ms?: number;
}

export interface SoakRun {
  minutes: number;
  sessions: number;
  started: string;
  /** Seconds after the start from which memory counts as warm. */
  warm_s: number;
  calls: CallRecord[];
  ops: OpRecord[];
  clicks: ClickTally[];
  events: EventStream[];
  faults: FaultRecord[];
  /** Fault kinds not injected in this run, with why. */
  skipped: Record<string, string>;
  /** The person's probe: one DevTools round trip a second; ms null when it got no answer at all. */
  probe: { t: number; ms: number | null }[];
  memory: MemorySample[];
  /** Live sessions at the end that no agent knew of (e.g. opened by a session start whose call timed out). */
  unknown_live_sessions?: string[];
}
