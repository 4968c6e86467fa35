/**
 * bsk: the CLI entry (and, as `bsk daemon start --foreground`, the daemon). Hot path: plan the call from
 * argv with the inlined catalog (no zod), connect to the daemon's socket, one request, print, exit.
 * Everything else (help, auto-start, daemon lifecycle, logs) is imported only when used.
 */
import { bskHome, homePaths } from "../shared/home.ts";
import { BskError, toErrorBody } from "../protocol/errors.ts";
import { CallProgressView, PROGRESS_EVENT } from "./call-progress.ts";
import { call, nextRequestId } from "./daemon-client.ts";
import { reachDaemon } from "./reach-daemon.ts";
import { emit, printStreamed, render, type Outcome } from "./output.ts";
import { plan, wantsJson, type Plan } from "./plan.ts";

type Env = Record<string, string | undefined>;

function asBskError(e: unknown): BskError {
  return e instanceof BskError ? e : BskError.from(toErrorBody(e));
}

async function runCall(p: Extract<Plan, { kind: "call" }>, env: Env): Promise<Outcome> {
  const traceId = p.meta.trace_id;
  const opId = p.meta.op_id;
  const conn = await reachDaemon(homePaths(bskHome(env), env), env);
  // Files first: an upload's sources are staged in the daemon, a download's destination is checked before the click.
  const files = p.cmd.transfer ? await import("./transfers.ts") : undefined;
  if (files) {
    try {
      await files.beforeCall(conn, p.cmd.transfer!, p.params);
    } catch (e) {
      conn.close();
      return { ok: false, error: asBskError(e), traceId, opId };
    }
  }
  const jsonFile = p.cmd.jsonFile ? await import("./json-file.ts") : undefined;
  if (jsonFile) {
    try {
      jsonFile.checkJsonOut(p.cmd.jsonFile!, p.params);
    } catch (e) {
      conn.close();
      return { ok: false, error: asBskError(e), traceId, opId };
    }
  }
  let streamed = false;
  const progress = new CallProgressView(p.json);
  const reply = await call(
    conn,
    { id: nextRequestId(), method: p.method, params: p.params, meta: p.meta },
    {
      giveUpMs: p.giveUpMs,
      cancelOnInterrupt: true,
      onEvent: (frame) => {
        if (frame.event === PROGRESS_EVENT) return progress.show(frame.payload);
        streamed = true;
        printStreamed(frame, p.json);
      },
      dropHint: opId
        ? `The daemon went away mid-call, so it may or may not have run; see bsk logs, then retry with --op-id ${opId} so it never runs twice.`
        : undefined,
    },
  );
  progress.clear();
  const trace = reply.meta?.trace_id ?? traceId;
  const effect = { effectState: reply.meta?.effect_state, replayed: reply.meta?.replayed || undefined };
  // Ctrl-C is how a follow ends: what streamed is the output.
  if (streamed && !reply.ok && reply.interrupted && reply.error.code === "cancelled") {
    return { ok: true, result: null, format: "none", streamed, traceId: trace };
  }
  const timings = () => ({ ...reply.meta?.timings, cli: Math.round(performance.now() * 10) / 10 });
  if (!reply.ok) return { ok: false, error: reply.error, traceId: trace, timings: timings(), opId, redact: p.cmd.redact, ...effect };
  let result = reply.result;
  if (files && result && typeof result === "object") {
    try {
      result = await files.afterCall(conn, p.cmd.transfer!, p.params, result as Record<string, unknown>, env);
    } catch (e) {
      return { ok: false, error: asBskError(e), traceId: trace, timings: timings(), opId };
    } finally {
      conn.close();
    }
  }
  if (p.cmd.fileResult && result && typeof result === "object") {
    try {
      const { saveFileResult } = await import("./file-result.ts");
      result = saveFileResult(result as Record<string, unknown>, p.cmd.fileResult, p.params, env);
    } catch (e) {
      return { ok: false, error: asBskError(e), traceId: trace, timings: timings(), opId };
    }
  }
  if (jsonFile && result && typeof result === "object") {
    try {
      result = jsonFile.saveJsonFile(result as Record<string, unknown>, p.cmd.jsonFile!, p.params, env);
    } catch (e) {
      return { ok: false, error: asBskError(e), traceId: trace, timings: timings(), opId };
    }
  }
  if (p.method === "system.status" && result && typeof result === "object") {
    const update = (await import("./update/status-note.ts")).updateNote(bskHome(env));
    if (update) result = { ...result, update };
  }
  return { ok: true, result, format: p.method, params: p.params, redact: p.cmd.redact, traceId: trace, timings: timings(), opId, ...effect, streamed };
}

async function runLocal(p: Extract<Plan, { kind: "local" }>, env: Env): Promise<Outcome> {
  const paths = homePaths(bskHome(env), env);
  switch (p.action) {
    case "daemon.start":
      return (await import("./commands/daemon.ts")).daemonStart({ paths, env, params: p.params });
    case "daemon.stop":
      return (await import("./commands/daemon.ts")).daemonStop({ paths, env, params: p.params });
    case "daemon.status":
      return (await import("./commands/daemon.ts")).daemonStatus({ paths, env, params: p.params });
    case "logs":
      return (await import("./commands/logs.ts")).logs({ paths, params: p.params, print: (l) => console.log(l) });
    case "version":
      return version();
    case "completion":
      return completion(String(p.params.shell));
    case "install-skill":
      return (await import("./commands/install-skill.ts")).installSkill({ env, params: p.params, json: p.json });
    case "update":
      return (await import("./commands/update.ts")).update({ paths, env, params: p.params, json: p.json });
    case "native.install":
      return (await import("./commands/native.ts")).nativeInstall({ paths, env, params: p.params });
    case "native.uninstall":
      return (await import("./commands/native.ts")).nativeUninstall({ paths, env, params: p.params });
    case "doctor":
      return (await import("./commands/doctor.ts")).doctor({ paths, env, params: p.params });
    case "mcp":
      return (await import("./mcp/server.ts")).mcpCommand({ env, json: p.json });
  }
}

async function completion(shell: string): Promise<Outcome> {
  const { completionScript, SHELLS } = await import("./completion.ts");
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new BskError("invalid_params", `no completion for ${JSON.stringify(shell)}`, { hint: `Choose one of: ${SHELLS.join(", ")}.` });
  }
  return { ok: true, format: "text", result: { text: completionScript(shell as "bash") } };
}

async function version(): Promise<Outcome> {
  const { APP_VERSION, PROTOCOL_VERSION } = await import("../protocol/version.ts");
  return { ok: true, format: "version", result: { version: APP_VERSION, protocol_version: PROTOCOL_VERSION } };
}

export async function main(argv: string[], env: Env): Promise<number> {
  // Chrome runs the native messaging host with the caller's origin as its argument (daemon/native-host/).
  if (argv[0] === "native-host") {
    const { runNativeHost } = await import("../daemon/native-host/host.ts");
    return runNativeHost(argv.slice(1), homePaths(bskHome(env), env));
  }
  if (argv[0] === "__complete") {
    const { complete } = await import("./completion.ts");
    const out = complete(argv.slice(1));
    if (out.length) console.log(out.join("\n"));
    return 0;
  }
  let json = wantsJson(argv);
  try {
    const p = plan(argv, env);
    switch (p.kind) {
      case "help":
        console.log((await import("./help.ts")).helpFor(p.words));
        return 0;
      case "version":
        return emit(render(await version(), p.json));
      case "local":
        json = p.json;
        return emit(render(await runLocal(p, env), json));
      case "call":
        json = p.json;
        return emit(render(await runCall(p, env), json));
    }
  } catch (e) {
    return emit(render({ ok: false, error: asBskError(e) }, json));
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2), process.env));
