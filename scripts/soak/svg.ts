/**
 * The soak's picture (bench/soak.svg), written by hand: call latency (p50, p99 per minute) above, daemon RSS and the
 * worker's JS heap below, over the run's time, with every injected fault as a vertical line in its kind's colour.
 */
import type { SoakReport } from "./figures.ts";
import type { FaultRecord, MemorySample } from "./run.ts";

const W = 960;
const PANEL_H = 220;
const LEFT = 64;
const RIGHT = 200;
const TOP = 40;
const GAP = 50;
const PALETTE = ["#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#ff7f0e", "#2ca02c", "#1f77b4", "#000000"];

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** A "nice" upper bound for an axis holding `max`. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * step >= max) return m * step;
  return 10 * step;
}

interface Series {
  label: string;
  colour: string;
  points: [number, number][];
}

function panel(
  y0: number,
  title: string,
  unit: string,
  seconds: number,
  series: Series[],
  faults: FaultRecord[],
  colourOf: (k: string) => string,
): string {
  const plotW = W - LEFT - RIGHT;
  const yMax = niceMax(Math.max(0, ...series.flatMap((s) => s.points.map(([, y]) => y))));
  const x = (t: number) => LEFT + (seconds > 0 ? (t / seconds) * plotW : 0);
  const y = (v: number) => y0 + PANEL_H - (v / yMax) * PANEL_H;
  const parts: string[] = [`<text x="${LEFT}" y="${y0 - 8}" font-weight="bold">${esc(title)}</text>`];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax / 4) * i;
    parts.push(
      `<line x1="${LEFT}" x2="${LEFT + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e5e5"/>`,
      `<text x="${LEFT - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${fmt(v)}</text>`,
    );
  }
  parts.push(
    `<text x="14" y="${y0 + PANEL_H / 2}" transform="rotate(-90 14 ${y0 + PANEL_H / 2})" text-anchor="middle">${esc(unit)}</text>`,
  );
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  const every = Math.max(1, Math.ceil(minutes / 12));
  for (let m = 0; m <= minutes; m += every) {
    if (m * 60 > seconds) break;
    parts.push(`<text x="${x(m * 60).toFixed(1)}" y="${y0 + PANEL_H + 16}" text-anchor="middle">${m}</text>`);
  }
  for (const f of faults)
    parts.push(
      `<line x1="${x(f.t).toFixed(1)}" x2="${x(f.t).toFixed(1)}" y1="${y0}" y2="${y0 + PANEL_H}" stroke="${colourOf(f.kind)}" stroke-opacity="0.6"><title>${esc(f.kind)} at ${f.t.toFixed(0)} s</title></line>`,
    );
  for (const s of series) {
    if (s.points.length === 0) continue;
    const d = s.points.map(([t, v], i) => `${i ? "L" : "M"}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    parts.push(`<path d="${d}" fill="none" stroke="${s.colour}" stroke-width="1.8"/>`);
  }
  parts.push(`<rect x="${LEFT}" y="${y0}" width="${plotW}" height="${PANEL_H}" fill="none" stroke="#999"/>`);
  series.forEach((s, i) => {
    const ly = y0 + 14 + i * 18;
    parts.push(
      `<line x1="${W - RIGHT + 14}" x2="${W - RIGHT + 34}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.colour}" stroke-width="2"/>`,
      `<text x="${W - RIGHT + 40}" y="${ly}">${esc(s.label)}</text>`,
    );
  });
  return parts.join("\n");
}

/** The picture of one run: `memory` as sampled, `faults` as injected (the ones that failed to inject are left out). */
export function soakSvg(report: SoakReport, memory: MemorySample[], faults: FaultRecord[]): string {
  // The axis covers the run and what ran past its end (the last calls, the sessions' stop).
  const seconds = Math.max(report.minutes * 60, ...report.latency_per_minute.map((m) => m.minute * 60 + 60), ...memory.map((m) => m.t));
  const kinds = [...new Set(faults.map((f) => f.kind))].sort();
  const colourOf = (k: string) => PALETTE[kinds.indexOf(k) % PALETTE.length]!;
  const latency: Series[] = [
    { label: "p50 call latency", colour: "#1f77b4", points: report.latency_per_minute.map((m) => [m.minute * 60 + 30, m.p50_ms]) },
    { label: "p99 call latency", colour: "#ff7f0e", points: report.latency_per_minute.map((m) => [m.minute * 60 + 30, m.p99_ms]) },
  ];
  const mem: Series[] = [
    {
      label: "daemon RSS",
      colour: "#2ca02c",
      points: memory.flatMap((m) => (m.daemon_rss_mb === undefined ? [] : [[m.t, m.daemon_rss_mb] as [number, number]])),
    },
    {
      label: "daemon RSS after GC",
      colour: "#17becf",
      points: memory.flatMap((m) => (m.daemon_rss_gc_mb === undefined ? [] : [[m.t, m.daemon_rss_gc_mb] as [number, number]])),
    },
    {
      label: "worker JS heap",
      colour: "#9467bd",
      points: memory.flatMap((m) => (m.worker_heap_mb === undefined ? [] : [[m.t, m.worker_heap_mb] as [number, number]])),
    },
  ];
  const y1 = TOP + 20;
  const y2 = y1 + PANEL_H + GAP;
  const legendY = y2 + PANEL_H + 44;
  const legend = kinds.map((k, i) => {
    const lx = LEFT + (i % 4) * 180;
    const ly = legendY + Math.floor(i / 4) * 18;
    return `<line x1="${lx}" x2="${lx + 16}" y1="${ly - 4}" y2="${ly - 4}" stroke="${colourOf(k)}" stroke-width="3"/><text x="${lx + 22}" y="${ly}">${esc(k)} ×${report.faults[k] ?? 0}</text>`;
  });
  const height = legendY + Math.ceil(kinds.length / 4) * 18 + 20;
  const verdict = report.passed ? "every figure at its bar" : `${report.failures.length} check(s) broken`;
  const title = `bsk soak: ${report.minutes} min, ${report.sessions} sessions, ${report.ops} ops, ${Object.values(report.faults).reduce((a, b) => a + b, 0)} faults — ${verdict}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${LEFT}" y="24" font-size="15" font-weight="bold">${esc(title)}</text>`,
    panel(y1, "call latency per minute", "ms", seconds, latency, faults, colourOf),
    panel(y2, "memory (sampled every 10 s)", "MB", seconds, mem, faults, colourOf),
    `<text x="${LEFT + (W - LEFT - RIGHT) / 2}" y="${y2 + PANEL_H + 32}" text-anchor="middle">minutes</text>`,
    ...legend,
    "</svg>",
    "",
  ].join("\n");
}
