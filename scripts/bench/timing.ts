/** Latency rows of the bench: wall time of whole processes (CLI start included), percentiles over repeated runs. */
export interface Row {
  name: string;
  runs: number;
  p50_ms: number;
  p95_ms: number;
  target_ms?: number;
  note?: string;
}

export const RUNS = Number(process.env.BENCH_RUNS ?? 40);

export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(2);
}

/** The middle half of a series (p25 and p75): the spread every ratio and difference is written with. */
export function spread(xs: number[]): [number, number] {
  return [pct(xs, 25), pct(xs, 75)];
}

export function row(name: string, xs: number[], target?: number, note?: string): Row {
  return { name, runs: xs.length, p50_ms: pct(xs, 50), p95_ms: pct(xs, 95), target_ms: target, note };
}

/** A row that could not be measured (the command is missing or failed): kept in the table, never a number. */
export function unmeasured(name: string, why: string, target?: number): Row {
  return { name, runs: 0, p50_ms: NaN, p95_ms: NaN, target_ms: target, note: `not measured: ${why}` };
}

/** One whole process, in ms; an exit code other than `expect` is a failed bench, never a fast sample. */
export async function timeProcess(argv: string[], env: Record<string, string>, expect = 0): Promise<number> {
  const t0 = performance.now();
  const proc = Bun.spawn(argv, { env, stdout: "ignore", stderr: "pipe", stdin: "ignore" });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== expect) throw new Error(`${argv.slice(1).join(" ")} exited ${code}: ${stderr.split("\n")[0]}`);
  return performance.now() - t0;
}

/**
 * Times `runs` whole processes after `warmup` ones. `jitterMs` spaces samples by a random 0..jitterMs pause: calls
 * that settle on the page's next frame phase-lock with the 60 Hz frame clock when fired back to back (every sample
 * lands at the same point of the frame cycle, so p50 reads as either ~0 or ~1 frame of waiting); an agent's calls
 * arrive at arbitrary moments, which the jitter reproduces.
 */
export async function series(argv: string[], env: Record<string, string>, runs = RUNS, warmup = 5, jitterMs = 0): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await timeProcess(argv, env);
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (jitterMs) await Bun.sleep(Math.random() * jitterMs);
    xs.push(await timeProcess(argv, env));
  }
  return xs;
}

export function printRows(rows: Row[]): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(`${pad("measure", 60)} ${pad("p50 ms", 9)} ${pad("p95 ms", 9)} target`);
  for (const r of rows) {
    const verdict = r.target_ms === undefined ? "" : `${r.target_ms} ${r.runs && r.p50_ms <= r.target_ms ? "ok" : "MISSED"}`;
    const p50 = r.runs ? String(r.p50_ms) : "-";
    const p95 = r.runs ? String(r.p95_ms) : "-";
    console.log(`${pad(r.name, 60)} ${pad(p50, 9)} ${pad(p95, 9)} ${verdict}${r.note?.startsWith("not measured") ? `  (${r.note})` : ""}`);
  }
}
