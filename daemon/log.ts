/**
 * Structured logs: one JSON object per line `{ts, level, msg, ...fields}` appended to logs/daemon.log,
 * rotated to daemon.log.1 past 5 MB. Lines are batched and written after the current turn of the event
 * loop, so logging a request never delays its reply.
 */
import { closeSync, fstatSync, openSync, renameSync, writeSync } from "node:fs";

export type Level = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  flush(): void;
  close(): void;
}

export const ROTATE_BYTES = 5 * 1024 * 1024;

/** `mirror`: also write every line to stdout (info, debug) or stderr (warn, error), for a supervisor (server mode). */
export function openLog(path: string, opts: { rotateBytes?: number; mirror?: boolean } = {}): Logger {
  const rotateBytes = opts.rotateBytes ?? ROTATE_BYTES;
  let fd = openSync(path, "a", 0o600);
  let size = fstatSync(fd).size;
  let pending: string[] = [];
  let scheduled = false;
  let closed = false;

  const flush = () => {
    scheduled = false;
    if (pending.length === 0 || closed) return;
    const text = pending.join("");
    pending = [];
    try {
      const bytes = Buffer.from(text);
      writeSync(fd, bytes);
      size += bytes.length;
      if (size > rotateBytes) {
        closeSync(fd);
        renameSync(path, `${path}.1`);
        fd = openSync(path, "a", 0o600);
        size = 0;
      }
    } catch {
      // A full disk or a removed log directory must not take the daemon down.
    }
  };

  const write = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (closed) return;
    const line = `${JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields }, errorReplacer)}\n`;
    pending.push(line);
    if (opts.mirror) (level === "warn" || level === "error" ? process.stderr : process.stdout).write(line);
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 0);
    }
  };

  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    flush,
    close() {
      flush();
      closed = true;
      try {
        closeSync(fd);
      } catch {}
    },
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}
