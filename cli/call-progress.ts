/**
 * The daemon's call.progress notes (protocol/frames.ts) drawn as one line on stderr while a long call runs: only on
 * a terminal, never with --json, and wiped before the result is printed.
 */
import { visible } from "./visible-text.ts";

/** protocol/frames.ts CALL_PROGRESS, spelt out so the CLI does not load zod for it (a unit test checks they agree). */
export const PROGRESS_EVENT = "call.progress";

const MIB = 1024 * 1024;

type Unit = "px" | "bytes" | "ms";

function amount(n: number, unit: Unit): string {
  if (unit === "ms") return `${Math.floor(n / 1000)}s`;
  return unit === "bytes" ? `${(n / MIB).toFixed(1)} MiB` : `${Math.round(n)} px`;
}

export function progressLine(p: { done: number; total?: number; unit: Unit; label?: string }): string {
  const label = p.label === undefined ? "working" : visible(p.label);
  if (p.total === undefined || p.total <= 0) return `${label} ${amount(p.done, p.unit)}`;
  if (p.unit === "ms") return `${label} ${amount(p.done, p.unit)} of ${amount(p.total, p.unit)}`;
  const pct = Math.min(100, Math.floor((p.done / p.total) * 100));
  return `${label} ${amount(p.done, p.unit)} of ${amount(p.total, p.unit)} ${pct}%`;
}

/** One progress line on stderr, redrawn in place (at most every 100 ms until done), only on a terminal, never with --json. */
export class ProgressLine {
  private drawn = false;
  private last = 0;
  /** Decided on the first note (most calls get none, and asking about the terminal costs start-up). */
  private on: boolean | undefined;

  constructor(private readonly json: boolean) {}

  draw(p: { done: number; total?: number; unit: Unit; label?: string }): void {
    this.on ??= !this.json && process.stderr.isTTY === true;
    if (!this.on) return;
    const now = performance.now();
    if (this.drawn && now - this.last < 100 && (p.total === undefined || p.done < p.total)) return;
    this.last = now;
    process.stderr.write(`\r${progressLine(p)}\x1b[K`);
    this.drawn = true;
  }

  clear(): void {
    if (this.drawn) process.stderr.write("\r\x1b[K");
    this.drawn = false;
  }
}

/** The daemon's call.progress notes about the call in flight. */
export class CallProgressView extends ProgressLine {
  show(payload: unknown): void {
    if (!payload || typeof payload !== "object") return;
    const p = payload as { done?: unknown; total?: unknown; unit?: unknown; label?: unknown };
    if (typeof p.done !== "number" || (p.unit !== "px" && p.unit !== "bytes" && p.unit !== "ms")) return;
    this.draw({
      done: p.done,
      unit: p.unit,
      ...(typeof p.total === "number" && { total: p.total }),
      ...(typeof p.label === "string" && { label: p.label }),
    });
  }
}
