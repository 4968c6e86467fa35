/** `bsk logs [-f] [-n N]`: the daemon's log, redacted; works with no daemon running. */
import type { FSWatcher } from "node:fs";
import type { HomePaths } from "../../shared/home.ts";
import { redact, type Outcome } from "../output.ts";

const TAIL_BYTES = 8 * 1024 * 1024;
const FOLLOW_POLL_MS = 500;

/** One log line as printed: JSON lines have secret-looking values masked; other text passes as is. */
export function redactLine(line: string): string {
  if (!line.startsWith("{")) return line;
  try {
    return JSON.stringify(redact(JSON.parse(line)));
  } catch {
    return line;
  }
}

function lastLines(text: string, n: number): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return n > 0 ? lines.slice(-n) : [];
}

export async function readTail(path: string, n: number): Promise<{ lines: string[]; size: number } | null> {
  const file = Bun.file(path);
  if (!(await file.exists())) return null;
  const size = file.size;
  const start = Math.max(0, size - TAIL_BYTES);
  let text = await file.slice(start, size).text();
  if (start > 0) text = text.slice(text.indexOf("\n") + 1);
  return { lines: lastLines(text, n).map(redactLine), size };
}

export async function logs(opts: { paths: HomePaths; params: Record<string, unknown>; print: (line: string) => void }): Promise<Outcome> {
  const { paths, params, print } = opts;
  const n = Math.max(0, Math.floor(Number(params.lines ?? 200)));
  const tail = await readTail(paths.log, n);
  if (!params.follow) {
    return {
      ok: true,
      format: "logs",
      result: { path: paths.log, lines: tail?.lines ?? [], note: tail ? undefined : `no log yet at ${paths.log}` },
    };
  }
  for (const l of tail?.lines ?? []) print(l);
  await follow(paths, tail?.size ?? 0, print);
  return { ok: true, format: "none", result: null };
}

/** Print lines appended to the log until interrupted; starts over when the log is rotated. */
async function follow(paths: HomePaths, from: number, print: (line: string) => void): Promise<never> {
  const { watch } = await import("node:fs");
  let pos = from;
  let partial = "";
  let wake: () => void = () => {};
  let watcher: FSWatcher | undefined;
  for (;;) {
    if (!watcher) {
      try {
        watcher = watch(paths.logsDir, () => wake());
      } catch {
        // no logs dir yet: poll until there is one
      }
    }
    const file = Bun.file(paths.log);
    const size = (await file.exists()) ? file.size : 0;
    if (size < pos) {
      pos = 0;
      partial = "";
    }
    if (size > pos) {
      const text = partial + (await file.slice(pos, size).text());
      pos = size;
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      for (const l of lines) print(redactLine(l));
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, FOLLOW_POLL_MS);
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
}
