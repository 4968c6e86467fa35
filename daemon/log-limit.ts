/**
 * Warnings about links that have not proven anything (refused upgrades, failed proofs, pairing tries, oversized or
 * late frames) are anyone's to cause, as often as they like: each message is logged at most `burst` times per
 * `windowMs`; past that the rest are counted and logged once as a summary (the same message with `suppressed: N`
 * and the window) when the window ends, or on `flush()` (the daemon stopping).
 */
import type { Logger } from "./log.ts";

export interface LimitedLogger extends Logger {
  /** Log the summaries of every open window now. */
  flushSummaries(): void;
}

interface Window {
  startedAt: number;
  logged: number;
  suppressed: number;
  timer?: Timer;
}

export function limitWarnings(log: Logger, opts: { burst?: number; windowMs?: number } = {}): LimitedLogger {
  const burst = opts.burst ?? 5;
  const windowMs = opts.windowMs ?? 60_000;
  const windows = new Map<string, Window>();

  const summarize = (msg: string) => {
    const w = windows.get(msg);
    if (!w) return;
    windows.delete(msg);
    clearTimeout(w.timer);
    if (w.suppressed > 0) log.warn(msg, { suppressed: w.suppressed, window_ms: Math.round(performance.now() - w.startedAt) });
  };

  const warn = (msg: string, fields?: Record<string, unknown>) => {
    let w = windows.get(msg);
    if (!w) {
      w = { startedAt: performance.now(), logged: 0, suppressed: 0 };
      windows.set(msg, w);
      w.timer = setTimeout(() => summarize(msg), windowMs);
      w.timer.unref?.();
    }
    if (w.logged < burst) {
      w.logged++;
      log.warn(msg, fields);
    } else w.suppressed++;
  };

  const flushSummaries = () => {
    for (const msg of [...windows.keys()]) summarize(msg);
  };

  return {
    debug: log.debug,
    info: log.info,
    warn,
    error: log.error,
    flush: log.flush,
    close: log.close,
    flushSummaries,
  };
}
