/**
 * A process run to its end in a test, its output captured: stdout and stderr are read while it runs (a pipe read
 * only after the exit can fill up and hold the child), stdin is closed. `json`: stdout as JSON (the CLI's --json
 * reply), undefined when it is not JSON.
 */
import { join } from "node:path";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

type Piped = { stdout: ReadableStream<Uint8Array>; stderr: ReadableStream<Uint8Array>; exited: Promise<number> };

/** The output and exit code of a process spawned with stdout and stderr piped, once it has ended. */
export async function outputOf(proc: Piped): Promise<Ran> {
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr, json: jsonOf(stdout) };
}

/** Runs `cmd` to its end. */
export function runProcess(cmd: string[], opts: { env?: Record<string, string | undefined>; cwd?: string } = {}): Promise<Ran> {
  return outputOf(Bun.spawn(cmd, { ...opts, stdin: "ignore", stdout: "pipe", stderr: "pipe" }));
}

/**
 * A probe script run in a process of its own (tests/unit/worker/*.ts: modules that bind a fake browser when first
 * imported): the JSON on the last line it printed; throws with its output when it failed.
 */
export async function workerAnswer(dir: string, script: string): Promise<any> {
  const r = await runProcess([process.execPath, join(dir, script)]);
  if (r.code !== 0) throw new Error(`the probe failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!);
}

function jsonOf(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
