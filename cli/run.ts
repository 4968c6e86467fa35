/**
 * bsk after main.ts: plan the call from argv, connect to the daemon's socket, one request, print; the exit code is
 * main.ts's. Everything else (help, auto-start, daemon lifecycle, logs) is imported only when used.
 */
import { APP_VERSION } from "../protocol/version.ts";
import { bskHome, homePaths } from "../shared/home.ts";
import { readJsonFile } from "../shared/read-json.ts";
import { asBskError, callThrough } from "./call-pipeline.ts";
import { CallProgressView, PROGRESS_EVENT } from "./call-progress.ts";
import { call, nextRequestId, type Connection } from "./daemon-client.ts";
import { LOCAL_RUNS } from "./local-commands.ts";
import { present, printStreamed, type Outcome } from "./output.ts";
import { wantsJson, type Plan } from "./plan.ts";

type Env = Record<string, string | undefined>;

/** `bun cli/main.ts` (tests, a checkout): there the index's macros would build the catalog on every start. */
const FROM_SOURCE = import.meta.path.endsWith(".ts");

async function runCall(p: Extract<Plan, { kind: "call" }>, env: Env): Promise<Outcome> {
  const traceId = p.meta.trace_id;
  const opId = p.meta.op_id;
  let streamed = false;
  /** Streamed events print in order, the first one after its line's module has loaded. */
  let printed: Promise<void> = Promise.resolve();
  const progress = new CallProgressView(p.json);
  const send = (conn: Connection) =>
    call(
      conn,
      { id: nextRequestId(), method: p.method, params: p.params, meta: p.meta },
      {
        giveUpMs: p.giveUpMs,
        cancelOnInterrupt: true,
        onEvent: (frame) => {
          if (frame.event === PROGRESS_EVENT) return progress.show(frame.payload);
          streamed = true;
          printed = printed.then(() => printStreamed(frame, p.json));
        },
        dropHint: opId
          ? `The daemon went away mid-call, so it may or may not have run; see bsk logs, then retry with --op-id ${opId} so it never runs twice.`
          : undefined,
      },
    ).finally(() => progress.clear());
  const piped = await callThrough(p.cmd, p.params, { paths: homePaths(bskHome(env), env), env, save: "always", send });
  await printed;
  if (piped.stage === "before") return { ok: false, error: piped.error, traceId, opId };
  const { reply } = piped;
  const trace = reply.meta?.trace_id ?? traceId;
  const effect = { effectState: reply.meta?.effect_state, replayed: reply.meta?.replayed || undefined };
  // Ctrl-C is how a follow ends: what streamed is the output.
  if (streamed && !reply.ok && reply.interrupted && reply.error.code === "cancelled") {
    return { ok: true, result: null, format: "none", streamed, traceId: trace };
  }
  const timings = () => ({ ...reply.meta?.timings, cli: Math.round(performance.now() * 10) / 10 });
  if (piped.stage === "reply") {
    const error =
      piped.reply.error.code === "invalid_params"
        ? (await import("./param-words.ts")).inCliWords(p.cmd, piped.reply.error)
        : piped.reply.error;
    return { ok: false, error, traceId: trace, timings: timings(), opId, redact: p.cmd.redact, ...effect };
  }
  if (piped.stage === "after") return { ok: false, error: piped.error, traceId: trace, timings: timings(), opId };
  let result = piped.result;
  if (p.method === "system.status" && result && typeof result === "object") result = await withUpdateNotes(result, env);
  return {
    ok: true,
    result,
    format: p.method,
    params: p.params,
    redact: p.cmd.redact,
    traceId: trace,
    timings: timings(),
    opId,
    ...effect,
    streamed,
  };
}

/**
 * `bsk status` with a pending update or a refused update check (update/status-note.ts). update-state.json is read
 * with read-json.ts (no fs-util, no node:path), and the note's module (with the release code) is loaded only when the file has something to say:
 * a release other than this one, or a failed check.
 */
async function withUpdateNotes(result: object, env: Env): Promise<object> {
  const state = readJsonFile(homePaths(bskHome(env), env).updateState) as { latest?: unknown; state?: unknown } | undefined;
  if (!state || (state.state !== "failed" && (!state.latest || state.latest === APP_VERSION))) return result;
  return { ...result, ...(await import("./update/status-note.ts")).statusNotes(state) };
}

export async function main(argv: string[], env: Env): Promise<number> {
  // Chrome runs the native messaging host with the caller's origin as its argument (daemon/native-host/).
  if (argv[0] === "native-host") {
    const { runNativeHost } = await import("../daemon/native-host/host.ts");
    return runNativeHost(argv.slice(1), homePaths(bskHome(env), env));
  }
  if (argv[0] === "__complete") {
    const { completeLive } = await import("./completion.ts");
    const out = await completeLive(argv.slice(1), homePaths(bskHome(env), env));
    if (out.length) console.log(out.join("\n"));
    return 0;
  }
  let json = wantsJson(argv);
  try {
    // The bundle's call path: the command index and one catalog part (quick-plan.ts); from source, the whole table.
    const quick = FROM_SOURCE ? undefined : await (await import("./quick-plan.ts")).quickPlan(argv, env);
    const p = quick ?? (await import("./router.ts")).plan(argv, env);
    switch (p.kind) {
      case "help":
        console.log((await import("./help.ts")).helpFor(p.words));
        return 0;
      case "version":
        return present((await import("./commands/version.ts")).version(), p.json);
      case "local":
        json = p.json;
        return present(await LOCAL_RUNS[p.action]!({ paths: homePaths(bskHome(env), env), env, params: p.params, json }), json);
      case "call":
        json = p.json;
        return present(await runCall(p, env), json);
    }
  } catch (e) {
    return present({ ok: false, error: asBskError(e) }, json);
  }
}
