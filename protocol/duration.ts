/** The longest deadline a call may have (request meta timeout_ms, --timeout): 24 h. */
export const MAX_CALL_MS = 86_400_000;

/** Durations as people write them: `500ms`, `30s`, `5m`, `2h`; a bare number is milliseconds. */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!m) return null;
  const ms = Number(m[1]) * UNITS[m[2] ?? "ms"]!;
  return Number.isFinite(ms) ? Math.round(ms) : null;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)}m`;
  return `${+(ms / 3_600_000).toFixed(1)}h`;
}
