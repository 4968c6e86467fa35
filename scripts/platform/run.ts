/** Running a target's binary (through its emulator) for the platform lane's proofs, and waiting for what it makes. */
import { existsSync } from "node:fs";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `argv` to its end with `env` added to this process's, stdin closed; kills it past `timeoutMs`. */
export async function run(argv: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<Ran> {
  const proc = Bun.spawn(argv, { env: { ...process.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (proc.signalCode === "SIGKILL") throw new Error(`${argv.join(" ")} did not end within ${timeoutMs / 1000} s`);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** The JSON reply of a `bsk … --json` run; throws with its output when it is not `{"ok": true}`. */
export function okJson<T = Record<string, unknown>>(what: string, r: Ran): T {
  let reply: { ok?: boolean; result?: T } | undefined;
  try {
    reply = JSON.parse(r.stdout);
  } catch {
    // reported below
  }
  if (r.code !== 0 || !reply?.ok) throw new Error(`${what} failed (exit ${r.code}): ${r.stdout.trim()} ${r.stderr.trim()}`.trim());
  return reply.result as T;
}

/**
 * Resolves once `path` exists; rejects when `gone` settles first (the process that was to make it ended) or past
 * `timeoutMs`. A poll: the file is made by a process under emulation, which may take many seconds to start.
 */
export async function waitForFile(path: string, gone: Promise<unknown>, timeoutMs: number): Promise<void> {
  let ended = false;
  gone.then(
    () => (ended = true),
    () => (ended = true),
  );
  const deadline = performance.now() + timeoutMs;
  while (!existsSync(path)) {
    if (ended) throw new Error(`the process that was to create ${path} ended first`);
    if (performance.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs / 1000} s`);
    await Bun.sleep(100);
  }
}
