/** The soak's pure parts (scripts/soak/): the memory slope, the event-gap accounting, the op verdicts, the picture. */
import { describe, expect, test } from "bun:test";
import {
  eventGaps,
  judgeClicks,
  judgeOp,
  latencyPerMinute,
  memorySlope,
  pooledSlopePerHour,
  summarise,
  wedgedSlots,
} from "../../scripts/soak/figures.ts";
import type { CallRecord, MemorySample, SoakRun } from "../../scripts/soak/run.ts";
import { niceMax, soakSvg } from "../../scripts/soak/svg.ts";

const call = (over: Partial<CallRecord>): CallRecord => ({
  t: 0,
  slot: 0,
  session: "s1",
  method: "snapshot",
  ms: 100,
  timeout_ms: 10_000,
  ok: true,
  structured: true,
  ...over,
});

describe("memory slope", () => {
  test("a steady climb is its rate per hour", () => {
    const samples = [0, 10, 20, 30].map((t) => ({ t, y: 50 + t / 360, segment: "a" }));
    expect(pooledSlopePerHour(samples)).toBeCloseTo(10, 6);
  });

  test("a restart (a new segment at a lower level) is not a fall, and flat segments are flat", () => {
    const samples = [
      ...[0, 10, 20].map((t) => ({ t, y: 80, segment: "pid-1" })),
      ...[30, 40, 50].map((t) => ({ t, y: 40, segment: "pid-2" })),
    ];
    expect(pooledSlopePerHour(samples)).toBe(0);
  });

  test("one slope fitted within every segment", () => {
    const samples = [
      ...[0, 10].map((t) => ({ t, y: 10 + t / 3600, segment: "a" })),
      ...[100, 110, 120].map((t) => ({ t, y: 500 + t / 3600, segment: "b" })),
      { t: 200, y: 9999, segment: "lonely" },
    ];
    expect(pooledSlopePerHour(samples)).toBeCloseTo(1, 6);
  });

  test("each (re)started daemon or worker counts once warm: its own first warm_s are left out", () => {
    const warmingThenFlat = (pid: number, from: number) =>
      [0, 10, 20, 30, 40, 50].map((dt) => ({ t: from + dt, daemon_pid: pid, daemon_rss_mb: dt < 30 ? 60 + dt : 90, home_bytes: 0 }));
    const memory = [...warmingThenFlat(1, 0), ...warmingThenFlat(2, 100)];
    expect(memorySlope(memory, 30, "daemon_rss_mb", "daemon_pid")).toBe(0);
    // Counted from the run's start only, the second daemon's warm-up read as growth.
    expect(
      pooledSlopePerHour(memory.filter((m) => m.t >= 30).map((m) => ({ t: m.t, y: m.daemon_rss_mb, segment: String(m.daemon_pid) })))!,
    ).toBeGreaterThan(0);
  });

  test("nothing to fit is no slope", () => {
    expect(pooledSlopePerHour([])).toBeUndefined();
    expect(pooledSlopePerHour([{ t: 5, y: 1, segment: "a" }])).toBeUndefined();
  });

  test("a life's warm-up counts from its first sample of any kind (its first collection comes a minute in)", () => {
    const memory = [0, 10, 20, 30, 40, 50, 60].map((t) => ({
      t,
      daemon_pid: 7,
      daemon_rss_mb: 80,
      ...(t >= 20 && { daemon_rss_gc_mb: t < 40 ? 60 : 70 }),
      home_bytes: 0,
    }));
    expect(memorySlope(memory, 40, "daemon_rss_gc_mb", "daemon_pid")).toBe(0);
  });
});

describe("memory judged", () => {
  const base = (memory: MemorySample[], warm_s = 30) => summarise(run({ memory, warm_s, calls: [], events: [], faults: [] }));

  test("the daemon is judged by the RSS its collections left, the sampled RSS reported beside it", () => {
    const memory = [0, 40, 80, 120, 160].map((t) => ({
      t,
      daemon_pid: 1,
      daemon_rss_mb: 60 + t, // garbage between collections: up a MB every second
      daemon_rss_gc_mb: 60,
      daemon_heap_mb: 8,
      worker: "w",
      worker_heap_mb: 3,
      home_bytes: 0,
    }));
    const r = base(memory);
    expect(r.daemon_rss_measured).toBe("after_gc");
    expect(r.daemon_rss_mb_per_h).toBe(0);
    expect(r.daemon_heap_mb_per_h).toBe(0);
    expect(r.daemon_rss_sampled_mb_per_h).toBe(3600);
    expect(r.passed).toBe(true);
  });

  test("a run recorded before the daemon logged its collections is judged by the sampled RSS", () => {
    const memory = [0, 40, 80].map((t) => ({ t, daemon_pid: 1, daemon_rss_mb: 60 + t, worker: "w", worker_heap_mb: 3, home_bytes: 0 }));
    const r = base(memory);
    expect(r.daemon_rss_measured).toBe("sampled");
    expect(r.daemon_rss_mb_per_h).toBe(3600);
    expect(r.failures).toContain("daemon RSS grows 3600 MB/h");
  });

  test("no life past its warm-up is a failure, not a flat line", () => {
    const memory = [0, 10].map((t) => ({ t, daemon_pid: t, daemon_rss_mb: 60, worker: `w${t}`, worker_heap_mb: 3, home_bytes: 0 }));
    const r = base(memory, 30);
    expect(r.daemon_rss_mb_per_h).toBeNull();
    expect(r.worker_heap_mb_per_h).toBeNull();
    expect(r.passed).toBe(false);
    expect(r.failures.filter((f) => f.includes("no life lasted past its warm-up"))).toHaveLength(2);
  });
});

describe("event gaps", () => {
  test("every seq from 1 to the last delivered is no gap, in any order and however often", () => {
    expect(eventGaps({ seqs: [3, 1, 2, 2], last: 3 })).toBe(0);
  });

  test("a seq never delivered is a gap; lost events never had a seq", () => {
    expect(eventGaps({ seqs: [1, 2, 5], last: 6 })).toBe(3);
    expect(eventGaps({ seqs: [], last: 0 })).toBe(0);
  });
});

describe("op verdicts against the page's own log", () => {
  test("executed arrived once; not_executed never; unknown at most once", () => {
    expect(judgeOp({ op_id: "a", method: "fill", session: "s", effect_state: "committed", ledger: "executed", received: 1 })).toBe("ok");
    expect(judgeOp({ op_id: "a", method: "fill", session: "s", effect_state: "committed", ledger: "executed", received: 0 })).toBe("wrong");
    expect(judgeOp({ op_id: "a", method: "fill", session: "s", effect_state: "none", ledger: "not_executed", received: 0 })).toBe("ok");
    expect(judgeOp({ op_id: "a", method: "fill", session: "s", effect_state: "none", ledger: "not_executed", received: 1 })).toBe("wrong");
    expect(judgeOp({ op_id: "a", method: "fill", session: "s", ledger: "unknown", received: 0 })).toBe("ok");
    expect(judgeOp({ op_id: "a", method: "fill", session: "s", ledger: "unknown", received: 1 })).toBe("ok");
  });

  test("twice is a duplicate; a reply and a ledger that disagree are wrong; an unreadable page is unverified", () => {
    expect(judgeOp({ op_id: "a", method: "type", session: "s", ledger: "unknown", received: 2 })).toBe("duplicated");
    expect(judgeOp({ op_id: "a", method: "type", session: "s", effect_state: "committed", ledger: "unknown", received: 1 })).toBe("wrong");
    expect(judgeOp({ op_id: "a", method: "type", session: "s", effect_state: "none", ledger: "unknown", received: 1 })).toBe("wrong");
    expect(judgeOp({ op_id: "a", method: "type", session: "s", received: 1 })).toBe("wrong");
    expect(judgeOp({ op_id: "a", method: "type", session: "s", ledger: "executed", received: null })).toBe("unverified");
  });

  test("clicks: every executed one arrived, no more than executed and unknown together", () => {
    expect(judgeClicks({ session: "s", executed: 3, unknown: 1, received: 4 })).toBe("ok");
    expect(judgeClicks({ session: "s", executed: 3, unknown: 1, received: 2 })).toBe("wrong");
    expect(judgeClicks({ session: "s", executed: 3, unknown: 1, received: 5 })).toBe("duplicated");
  });
});

describe("wedged sessions", () => {
  test("the first call after a fault must say what happened or why not", () => {
    const calls = [
      call({ t: 1 }),
      call({ t: 6, ok: false, structured: false, method: "click" }),
      call({ slot: 1, t: 7, ok: false, code: "timeout" }),
    ];
    expect(wedgedSlots(calls, [{ t: 5, kind: "daemon_killed", injected: true }]).map((w) => w.slot)).toEqual([0]);
  });

  test("a slot whose calls fail for its last minute is wedged", () => {
    const calls = [call({ t: 0 }), call({ t: 10, ok: false, code: "timeout" }), call({ t: 75, ok: false, code: "timeout" })];
    expect(wedgedSlots(calls, []).map((w) => w.slot)).toEqual([0]);
    expect(wedgedSlots([...calls, call({ t: 80 })], [])).toEqual([]);
  });
});

test("latency per minute: p50 and p99 of the calls that started in it", () => {
  const calls = [call({ t: 1, ms: 10 }), call({ t: 2, ms: 30 }), call({ t: 3, ms: 20 }), call({ t: 61, ms: 5 })];
  expect(latencyPerMinute(calls)).toEqual([
    { minute: 0, calls: 3, p50_ms: 20, p99_ms: 30 },
    { minute: 1, calls: 1, p50_ms: 5, p99_ms: 5 },
  ]);
});

function run(over: Partial<SoakRun> = {}): SoakRun {
  return {
    minutes: 2,
    sessions: 1,
    started: "2026-12-06T20:00:00.000Z",
    warm_s: 30,
    calls: [
      call({ t: 1, effect_state: "committed" }),
      call({ t: 70, ms: 12_000, cli_ms: 11_500, method: "navigate" }),
      call({ t: 80, ms: 14_000, cli_ms: 10_400, method: "click" }),
    ],
    ops: [],
    clicks: [],
    events: [{ session: "s1", seqs: [1, 2, 4], last: 4, lost: 0 }],
    faults: [
      { t: 40, kind: "daemon_killed", injected: true },
      { t: 50, kind: "disk_full", injected: false, note: 'no <tmpfs> & "mount"' },
    ],
    skipped: {},
    probe: [{ t: 1, ms: 12 }],
    memory: [
      { t: 0, daemon_pid: 1, daemon_rss_mb: 50, worker: "w", worker_heap_mb: 3, home_bytes: 10 },
      { t: 60, daemon_pid: 1, daemon_rss_mb: 50, worker: "w", worker_heap_mb: 3, home_bytes: 20 },
    ],
    ...over,
  };
}

test("the report names each broken check, and counts faults injected apart from those that failed", () => {
  const r = summarise(run());
  expect(r.passed).toBe(false);
  expect(r.event_gaps).toBe(1);
  expect(r.calls_over_timeout).toBe(2);
  // The click ran over only while its process started (the machine), not by bsk's own clock.
  expect(r.calls_over_timeout_by_cli_clock).toBe(1);
  expect(r.faults).toEqual({ daemon_killed: 1 });
  expect(r.faults_failed_to_inject).toEqual({ disk_full: 1 });
  expect(r.failures.some((f) => f.startsWith("event gaps in s1"))).toBe(true);
  expect(r.failures.some((f) => f.startsWith("call over timeout: navigate"))).toBe(true);
  expect(r.home_bytes_end).toBe(20);
});

describe("the picture", () => {
  test("an axis ends on a round number at or above the data", () => {
    expect(niceMax(0)).toBe(1);
    expect(niceMax(7)).toBe(8);
    expect(niceMax(9)).toBe(10);
    expect(niceMax(180)).toBe(200);
    expect(niceMax(2400)).toBe(2500);
    expect(niceMax(27_964)).toBe(30_000);
  });

  test("a well-formed SVG with both panels, every series and each fault marked, text escaped", () => {
    const r = run();
    const svg = soakSvg(summarise(r), r.memory, [...r.faults.filter((f) => f.injected), { t: 80, kind: "a<b", injected: true }]);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trim().endsWith("</svg>")).toBe(true);
    for (const label of ["p50 call latency", "p99 call latency", "daemon RSS", "worker JS heap"]) expect(svg).toContain(label);
    expect(svg).toContain("<title>daemon_killed at 40 s</title>");
    expect(svg).toContain("a&lt;b");
    expect(svg).not.toContain("a<b");
    const tags = svg.match(/<(\/?)(svg|text|path|line|rect|title)\b/g) ?? [];
    const opened = tags.filter((t) => !t.startsWith("</")).length;
    const selfClosed = (svg.match(/\/>/g) ?? []).length;
    expect(opened - selfClosed).toBe(tags.filter((t) => t.startsWith("</")).length);
  });
});
