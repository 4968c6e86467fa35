/**
 * A command and its arguments + env → what this invocation does: a request to the daemon ({method, params, meta}),
 * a CLI-only command, help or the version. Pure (no I/O), so every CLI shape is unit-tested through it (router.ts's
 * `plan` routes with the whole table; quick-plan.ts, the call path, with the command index and one catalog part).
 */
import type { RequestMeta } from "../protocol/frames.ts";
import { MAX_CALL_MS } from "../protocol/duration.ts";
import { BskError } from "../protocol/errors.ts";
import { outParam } from "./call-pipeline.ts";
import { defaultIo, parseArgs, type ArgsIo, type ParsedArgs } from "./args.ts";
import type { CommandSpec } from "./command-spec.ts";

type Env = Record<string, string | undefined>;

export type Plan =
  | { kind: "call"; cmd: CommandSpec; method: string; params: Record<string, unknown>; meta: RequestMeta; json: boolean; giveUpMs: number }
  | { kind: "local"; cmd: CommandSpec; action: string; params: Record<string, unknown>; json: boolean }
  | { kind: "help"; words: string[] }
  | { kind: "version"; json: boolean };

/** The CLI waits this much longer than the call's own deadline before it decides the daemon is gone. */
export const GRACE_MS = 5_000;

export interface Ids {
  traceId: string;
  /** A fresh op id, used when the command mutates the browser and --op-id was not given. */
  opId: () => string;
}

export function randomIds(): Ids {
  // A trace id only ties log lines together; the first use of crypto's generator costs a read ~1 ms.
  const n = Math.floor(Math.random() * 0x1_0000_0000);
  return { traceId: n.toString(16).padStart(8, "0"), opId: () => crypto.randomUUID() };
}

/** `--json` anywhere before `--`: decides how even a parse error is printed. */
export function wantsJson(argv: readonly string[]): boolean {
  for (const tok of argv) {
    if (tok === "--") return false;
    if (tok === "--json" || tok === "--json=true") return true;
  }
  return false;
}

/** `path` made absolute against `cwd` (`~/` is the home directory), with `.` and `..` folded. Pure string work. */
export function absolutePath(path: string, cwd: string, home?: string): string {
  if (home && (path === "~" || path.startsWith("~/"))) path = home + path.slice(1);
  const parts: string[] = [];
  for (const part of (path.startsWith("/") ? path : `${cwd}/${path}`).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/**
 * An output path (--out): absolute, like any local path, but never "-": bsk writes files only, and a file named "-"
 * in the cwd would surprise whoever meant stdout.
 */
export function outputPath(path: string, cwd: string, home?: string): string {
  if (path.trim() === "-") {
    throw new BskError("invalid_params", 'bsk does not write results to stdout ("-"): --out takes a file path', {
      hint: "Give --out a file path, or leave it out to use the temp directory; the output names the file written.",
      data: { reason: "stdout_not_supported" },
    });
  }
  return absolutePath(path, cwd, home);
}

export function planCommand(
  cmd: CommandSpec,
  args: string[],
  env: Env,
  ids: Ids = randomIds(),
  pid = process.pid,
  cwd = process.cwd(),
  io: ArgsIo = defaultIo,
): Plan {
  const parsed: ParsedArgs = parseArgs(cmd, args, env, io);
  if (cmd.local) return { kind: "local", cmd, action: cmd.local, params: parsed.params, json: parsed.json };
  if (parsed.timeoutMs <= 0 || parsed.timeoutMs > MAX_CALL_MS) {
    throw new BskError("invalid_params", "--timeout must be between 1ms and 24h", { hint: "For example: --timeout 30s" });
  }
  // The CLI writes a file result itself, so its path is the CLI's: sent on absolute, for the logs only.
  const pathParam = outParam(cmd);
  if (pathParam && parsed.params[pathParam] !== undefined) {
    const path = String(parsed.params[pathParam]);
    if (!path.trim()) {
      const flag = Object.keys(cmd.flags).find((k) => cmd.flags[k]!.param === pathParam) ?? pathParam;
      throw new BskError("invalid_params", `--${flag} needs a file path`, {
        hint: `Leave --${flag} out to write into the temp directory.`,
      });
    }
    parsed.params[pathParam] = outputPath(path, cwd, env.HOME);
  }
  // A method that waits on its own (e.g. for a person) gets its wait on top of the deadline from the daemon;
  // without --timeout, the caller's own timeout covers that wait too (so `bsk wait 2m` is not cut at 30 s).
  const ownWait = cmd.waitParam ? Number(parsed.params[cmd.waitParam] ?? cmd.waitDefaultMs) || 0 : 0;
  // Capped at the frame's 24 h: an own wait beyond its range is the daemon's to refuse (invalid_params naming the
  // range), not a request frame too malformed to read.
  const timeoutMs =
    parsed.timeoutGiven || !ownWait ? parsed.timeoutMs : Math.min(MAX_CALL_MS, Math.max(parsed.timeoutMs, ownWait + GRACE_MS));
  const meta: RequestMeta = { trace_id: ids.traceId, timeout_ms: timeoutMs, client_pid: pid };
  if (cmd.effect === "BrowserMutation") meta.op_id = parsed.opId ?? ids.opId();
  return {
    kind: "call",
    cmd,
    method: cmd.method!,
    params: parsed.params,
    meta,
    json: parsed.json,
    giveUpMs: Math.max(timeoutMs, ownWait) + GRACE_MS,
  };
}
