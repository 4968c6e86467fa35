/**
 * The soak's figures and checks, from a recorded run (run.ts): pure, so tests/unit/soak.test.ts checks them.
 */
import type { CallRecord, ClickTally, EventStream, FaultRecord, MemorySample, OpRecord, SoakRun } from "./run.ts";

/** The bars of issue #40: a figure above its bar fails the soak. */
export const BARS = {
  wrong_outcomes: 0,
  duplicated_ops: 0,
  event_gaps: 0,
  calls_over_timeout: 0,
  wedged_sessions: 0,
  person_probe_max_ms: 1000,
  daemon_rss_mb_per_h: 5,
  worker_heap_mb_per_h: 5,
} as const;

/** A call may end at most this long after its --timeout. */
export const TIMEOUT_GRACE_MS = 1000;

/**
 * The slope (units per hour) of samples taken in segments (a daemon or worker restarted is a new segment, its level
 * unrelated to the last one's): one common slope fitted within every segment (pooled least squares). Undefined when no
 * segment has two samples at different times: nothing to judge by, never a flat 0.
 */
export function pooledSlopePerHour(samples: { t: number; y: number; segment: string }[]): number | undefined {
  const bySegment = new Map<string, { t: number; y: number }[]>();
  for (const s of samples) bySegment.set(s.segment, [...(bySegment.get(s.segment) ?? []), s]);
  let num = 0;
  let den = 0;
  for (const points of bySegment.values()) {
    if (points.length < 2) continue;
    const tMean = points.reduce((a, p) => a + p.t, 0) / points.length;
    const yMean = points.reduce((a, p) => a + p.y, 0) / points.length;
    for (const p of points) {
      num += (p.t - tMean) * (p.y - yMean);
      den += (p.t - tMean) ** 2;
    }
  }
  return den === 0 ? undefined : (num / den) * 3600;
}

/** Seqs from 1 to `last` that were never delivered: the stream's silent gaps (lost events never get a seq). */
export function eventGaps(stream: Pick<EventStream, "seqs" | "last">): number {
  const seen = new Set(stream.seqs);
  let missing = 0;
  for (let seq = 1; seq <= stream.last; seq++) if (!seen.has(seq)) missing++;
  return missing;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function latencyPerMinute(calls: CallRecord[]): { minute: number; calls: number; p50_ms: number; p99_ms: number }[] {
  const byMinute = new Map<number, number[]>();
  for (const c of calls) {
    const m = Math.floor(c.t / 60);
    byMinute.set(m, [...(byMinute.get(m) ?? []), c.ms]);
  }
  return [...byMinute.entries()]
    .sort(([a], [b]) => a - b)
    .map(([minute, ms]) => ({ minute, calls: ms.length, p50_ms: Math.round(percentile(ms, 50)), p99_ms: Math.round(percentile(ms, 99)) }));
}

/**
 * An op's outcome against the page's own log: `committed`/`executed` must have arrived exactly once,
 * `not_executed` and a reply saying `none` never; `unknown` at most once. More than once is a duplicate.
 */
export function judgeOp(op: OpRecord): "ok" | "wrong" | "duplicated" | "unverified" {
  if (op.received === null) return "unverified";
  if (op.received > 1) return "duplicated";
  const ledger = op.ledger;
  if (op.effect_state === "committed" && ledger !== "executed") return "wrong";
  if (op.effect_state === "none" && op.received > 0) return "wrong";
  if (ledger === undefined) return op.received > 0 ? "wrong" : "ok";
  if (ledger === "executed") return op.received === 1 ? "ok" : "wrong";
  if (ledger === "not_executed") return op.received === 0 ? "ok" : "wrong";
  return "ok";
}

/** Clicks of a session: every executed one arrived, and no more than the executed and the unknown ones. */
export function judgeClicks(t: ClickTally): "ok" | "wrong" | "duplicated" {
  if (t.received < t.executed) return "wrong";
  if (t.received > t.executed + t.unknown) return "duplicated";
  return "ok";
}

/**
 * Wedged slots: after a fault, a slot's first call must work or say why (a structured reply); and no slot may end
 * the run with its calls failing for the last `stuckS` seconds.
 */
export function wedgedSlots(calls: CallRecord[], faults: FaultRecord[], stuckS = 60): { slot: number; why: string }[] {
  const slots = [...new Set(calls.map((c) => c.slot))].sort((a, b) => a - b);
  const out: { slot: number; why: string }[] = [];
  for (const slot of slots) {
    const mine = calls.filter((c) => c.slot === slot).sort((a, b) => a.t - b.t);
    const silent = faults.map((f) => mine.find((c) => c.t >= f.t)).find((c) => c !== undefined && !c.structured);
    if (silent) {
      out.push({ slot, why: `${silent.method} at ${silent.t.toFixed(1)} s answered without a code after a fault` });
      continue;
    }
    const lastOk = mine.findLast((c) => c.ok);
    const end = mine.at(-1);
    if (end && !end.ok && end.t - (lastOk?.t ?? mine[0]!.t) >= stuckS) {
      out.push({ slot, why: `no call worked after ${(lastOk?.t ?? 0).toFixed(1)} s (last: ${end.method} ${end.code ?? "?"})` });
    }
  }
  return out;
}

export interface SoakReport {
  minutes: number;
  sessions: number;
  started: string;
  ops: number;
  calls: number;
  faults: Record<string, number>;
  faults_failed_to_inject: Record<string, number>;
  faults_skipped: Record<string, string>;
  checked_ops: number;
  unverified_ops: number;
  wrong_outcomes: number;
  duplicated_ops: number;
  event_gaps: number;
  events_lost: number;
  calls_over_timeout: number;
  /** Of those, the ones over also by the CLI's own clock (`timings.cli`, from its process start) or without one. */
  calls_over_timeout_by_cli_clock: number;
  wedged_sessions: number;
  person_probe_max_ms: number;
  person_probe_unanswered: number;
  /** The judged slope: of the RSS each collection left (`daemon_rss_measured: after_gc`), else of the sampled RSS. */
  daemon_rss_mb_per_h: number | null;
  daemon_rss_measured: "after_gc" | "sampled";
  /** The RSS as sampled every 10 s, whatever garbage it held (reported, not judged). */
  daemon_rss_sampled_mb_per_h: number | null;
  /** The daemon's live JS heap after its collections (reported, not judged). */
  daemon_heap_mb_per_h: number | null;
  worker_heap_mb_per_h: number | null;
  home_bytes_end: number;
  /** Live sessions at the end that no agent knew of (reported, not judged). */
  unknown_live_sessions: number;
  home_bytes_max: number;
  /** `bsk version`'s time (sampled every 10 s), max and p50: the floor the machine's load puts under every call. */
  cli_floor_ms_max: number;
  cli_floor_ms_p50: number;
  latency_per_minute: { minute: number; calls: number; p50_ms: number; p99_ms: number }[];
  /** Each figure against its bar; `failures` lists the broken ones with what broke them. */
  passed: boolean;
  failures: string[];
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * The memory slope once warm: a daemon or worker (re)started by a fault warms up again (its heap grows to the
 * engine's working size over its first minutes), so each segment counts from `warmS` after its first sample.
 */
export function memorySlope(
  memory: MemorySample[],
  warmS: number,
  value: "daemon_rss_mb" | "daemon_rss_gc_mb" | "daemon_heap_mb" | "worker_heap_mb",
  segment: "daemon_pid" | "worker",
): number | undefined {
  const started = new Map<string, number>();
  const samples = memory.flatMap((m) => {
    if (m[segment] === undefined) return [];
    const seg = String(m[segment]);
    if (!started.has(seg)) started.set(seg, m.t);
    if (m[value] === undefined) return [];
    return m.t >= started.get(seg)! + warmS ? [{ t: m.t, y: m[value]!, segment: seg }] : [];
  });
  return pooledSlopePerHour(samples);
}

export function summarise(run: SoakRun): SoakReport {
  const failures: string[] = [];
  const verdicts = run.ops.map((op) => ({ op, verdict: judgeOp(op) }));
  const clickVerdicts = run.clicks.map((t) => ({ t, verdict: judgeClicks(t) }));
  for (const { op, verdict } of verdicts) {
    if (verdict === "wrong" || verdict === "duplicated")
      failures.push(
        `${verdict} op ${op.op_id} (${op.method}): reply ${op.effect_state ?? "lost"}, ledger ${op.ledger ?? "none"}, page got it ${op.received}×`,
      );
  }
  for (const { t, verdict } of clickVerdicts) {
    if (verdict !== "ok")
      failures.push(`${verdict} clicks in ${t.session}: ${t.executed} executed, ${t.unknown} unknown, page counted ${t.received}`);
  }
  const over = run.calls.filter((c) => c.ms > c.timeout_ms + TIMEOUT_GRACE_MS);
  for (const c of over) {
    const own = c.cli_ms === undefined ? "" : `, ${Math.round(c.cli_ms)} ms by its own clock`;
    failures.push(
      `call over timeout: ${c.method} took ${Math.round(c.ms)} ms${own} (timeout ${c.timeout_ms}) at ${c.t.toFixed(1)} s${c.code ? `, ${c.code}` : ""}`,
    );
  }
  // Over by the CLI's own clock too: not the process's start on a loaded machine, but time bsk itself let pass.
  const overByOwnClock = over.filter((c) => c.cli_ms === undefined || c.cli_ms > c.timeout_ms + TIMEOUT_GRACE_MS);
  const gaps = run.events.map((e) => ({ e, gaps: eventGaps(e) })).filter((g) => g.gaps > 0);
  for (const g of gaps) failures.push(`event gaps in ${g.e.session}: ${g.gaps} of seq 1..${g.e.last} never delivered`);
  const wedged = wedgedSlots(
    run.calls,
    run.faults.filter((f) => f.injected),
  );
  for (const s of wedged) failures.push(`wedged slot ${s.slot}: ${s.why}`);
  const answered = run.probe.flatMap((p) => (p.ms === null ? [] : [p.ms]));
  const unanswered = run.probe.length - answered.length;
  const probeMax = Math.max(0, ...answered);
  if (probeMax > BARS.person_probe_max_ms) failures.push(`the person's probe waited ${Math.round(probeMax)} ms`);
  if (unanswered > 0) failures.push(`the person's probe got no answer ${unanswered}×`);
  // The daemon's RSS as its collections left it (logged after each), when the run has them; a run recorded before
  // the daemon logged them is judged by the RSS sampled whenever, garbage of up to a minute included.
  const afterGc = run.memory.some((m) => m.daemon_rss_gc_mb !== undefined);
  const rawSlope = memorySlope(run.memory, run.warm_s, "daemon_rss_mb", "daemon_pid");
  const daemonSlope = afterGc ? memorySlope(run.memory, run.warm_s, "daemon_rss_gc_mb", "daemon_pid") : rawSlope;
  const heapSlope = memorySlope(run.memory, run.warm_s, "daemon_heap_mb", "daemon_pid");
  const workerSlope = memorySlope(run.memory, run.warm_s, "worker_heap_mb", "worker");
  const judge = (what: string, slope: number | undefined, bar: number) => {
    if (slope === undefined) failures.push(`${what}: no life lasted past its warm-up (${run.warm_s} s), nothing to judge by`);
    else if (slope >= bar) failures.push(`${what} grows ${round(slope)} MB/h`);
  };
  judge(afterGc ? "daemon RSS after its collections" : "daemon RSS", daemonSlope, BARS.daemon_rss_mb_per_h);
  judge("worker heap", workerSlope, BARS.worker_heap_mb_per_h);

  const count = (kind: string, list: FaultRecord[]) => list.filter((f) => f.kind === kind).length;
  const kinds = [...new Set(run.faults.map((f) => f.kind))].sort();
  const injected = run.faults.filter((f) => f.injected);
  const notInjected = run.faults.filter((f) => !f.injected);
  const tally = (list: FaultRecord[]) => Object.fromEntries(kinds.map((k) => [k, count(k, list)]).filter(([, n]) => n));
  const homeBytes = run.memory.map((m) => m.home_bytes);
  const floors = run.memory.flatMap((m) => (m.cli_floor_ms === undefined ? [] : [m.cli_floor_ms]));
  const report: SoakReport = {
    minutes: run.minutes,
    sessions: run.sessions,
    started: run.started,
    ops: run.calls.filter((c) => c.effect_state !== undefined).length,
    calls: run.calls.length,
    faults: tally(injected),
    faults_failed_to_inject: tally(notInjected),
    faults_skipped: run.skipped,
    checked_ops: verdicts.filter((v) => v.verdict !== "unverified").length + run.clicks.reduce((a, t) => a + t.executed + t.unknown, 0),
    unverified_ops: verdicts.filter((v) => v.verdict === "unverified").length,
    wrong_outcomes: verdicts.filter((v) => v.verdict === "wrong").length + clickVerdicts.filter((v) => v.verdict === "wrong").length,
    duplicated_ops:
      verdicts.filter((v) => v.verdict === "duplicated").length + clickVerdicts.filter((v) => v.verdict === "duplicated").length,
    event_gaps: gaps.reduce((a, g) => a + g.gaps, 0),
    events_lost: run.events.reduce((a, e) => a + e.lost, 0),
    calls_over_timeout: over.length,
    calls_over_timeout_by_cli_clock: overByOwnClock.length,
    wedged_sessions: wedged.length,
    person_probe_max_ms: Math.round(probeMax),
    person_probe_unanswered: unanswered,
    daemon_rss_mb_per_h: daemonSlope === undefined ? null : round(daemonSlope),
    daemon_rss_measured: afterGc ? "after_gc" : "sampled",
    daemon_rss_sampled_mb_per_h: rawSlope === undefined ? null : round(rawSlope),
    daemon_heap_mb_per_h: heapSlope === undefined ? null : round(heapSlope),
    worker_heap_mb_per_h: workerSlope === undefined ? null : round(workerSlope),
    home_bytes_end: homeBytes.at(-1) ?? 0,
    unknown_live_sessions: run.unknown_live_sessions?.length ?? 0,
    home_bytes_max: Math.max(0, ...homeBytes),
    cli_floor_ms_max: Math.round(Math.max(0, ...floors)),
    cli_floor_ms_p50: Math.round(percentile(floors, 50)),
    latency_per_minute: latencyPerMinute(run.calls),
    passed: failures.length === 0,
    failures,
  };
  return report;
}
