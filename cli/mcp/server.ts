/**
 * `bsk mcp`: the catalog as an MCP stdio server (official SDK). Each tool call is one request to the daemon over
 * its own connection (started as the CLI starts it), so calls run concurrently and a cancelled call cancels only
 * itself. The SDK's low-level Server is used on purpose: the tools' JSON Schemas come from the catalog
 * (tools.ts), not from a second set of schemas registered with McpServer.
 *
 * Its sessions end with it: session_start always carries owner_pid = this process (the daemon ends the session
 * if we die), and stdin closing, SIGTERM or SIGINT stop them explicitly before exiting.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { bskHome, homePaths, type HomePaths } from "../../shared/home.ts";
import { BskError } from "../../protocol/errors.ts";
import { APP_VERSION } from "../../protocol/version.ts";
import { asBskError, callThrough, outParam, type Piped } from "../call-pipeline.ts";
import type { Connection } from "../daemon-client.ts";
import { reachDaemon } from "../reach-daemon.ts";
import type { Outcome } from "../output.ts";
import { MAX_CALL_MS } from "../../protocol/duration.ts";
import { absolutePath, GRACE_MS, outputPath } from "../plan.ts";
import { DEFAULT_TIMEOUT_MS, request } from "../request.ts";
import { instructions } from "./instructions.ts";
import { MAX_INLINE_IMAGE_BYTES, toolError, toolResult, type OpFacts, type ToolResult } from "./results.ts";
import { selectTools, type ToolSelection } from "./profiles.ts";
import { listedTool, mcpTools, OP_ID_PARAM, type McpTool } from "./tools.ts";

type Env = Record<string, string | undefined>;

const STOP_TIMEOUT_MS = 5_000;

/** The deadline of one call: the method's own wait (a borrow, a help request, `wait`) on top of the usual timeout. */
export function timeoutFor(tool: McpTool, params: Record<string, unknown>): number {
  const base = tool.def.cli?.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!tool.def.waitParam) return base;
  const schema = tool.inputSchema.properties[tool.def.waitParam] as { default?: unknown } | undefined;
  const ownWait = Number(params[tool.def.waitParam] ?? schema?.default ?? 0) || 0;
  return Math.min(MAX_CALL_MS, Math.max(base, ownWait + GRACE_MS));
}

/** Local paths in params are the client's, relative to this server's working directory (the CLI's rule too). */
function absolutePaths(tool: McpTool, params: Record<string, unknown>, env: Env): void {
  const cwd = process.cwd();
  const pathParam = outParam(tool.def);
  if (pathParam && typeof params[pathParam] === "string") params[pathParam] = outputPath(params[pathParam] as string, cwd, env.HOME);
  const uploads = tool.def.transfer?.upload;
  if (uploads && Array.isArray(params[uploads])) {
    params[uploads] = (params[uploads] as unknown[]).map((p) => absolutePath(String(p), cwd, env.HOME));
  }
}

export class McpBridge {
  private readonly byName: Map<string, McpTool>;
  /** Live sessions this server started. */
  readonly sessions = new Set<string>();

  constructor(
    private readonly paths: HomePaths,
    private readonly env: Env,
    /** The tools offered (`--tools`); a tool left out is refused like an unknown one. */
    readonly tools: McpTool[] = mcpTools(),
  ) {
    this.byName = new Map(tools.map((t) => [t.name, t]));
  }

  async callTool(name: string, args: Record<string, unknown> = {}, signal?: AbortSignal): Promise<ToolResult> {
    const tool = this.byName.get(name);
    if (!tool) {
      return toolError(
        new BskError("unknown_method", `no tool ${JSON.stringify(name)}`, {
          hint: "List the tools (tools/list) and use one of those names; the person chooses which tools this server offers.",
        }),
      );
    }
    // Its schema is closed: an argument it does not list (a typo, a param the server sets itself) is refused, not dropped.
    const unknown = Object.keys(args).filter((p) => !Object.hasOwn(tool.inputSchema.properties, p));
    if (unknown.length) {
      const list = unknown.join(", ");
      return toolError(
        new BskError("invalid_params", `${name} does not take ${list}`, {
          hint: `Leave out ${list}: the tool's input schema lists what it takes.`,
          data: { params: unknown },
        }),
        tool,
      );
    }
    const { [OP_ID_PARAM]: givenOpId, ...params } = args;
    if (tool.method === "session.start") params.owner_pid = process.pid;
    const opId = tool.def.effect === "BrowserMutation" ? (typeof givenOpId === "string" ? givenOpId : crypto.randomUUID()) : undefined;
    const dropHint =
      opId && `The daemon went away mid-call, so it may or may not have run; retry with op_id "${opId}" so it never runs twice.`;
    const send = (conn: Connection) =>
      request(conn, tool.method, params, { timeoutMs: timeoutFor(tool, params), opId, signal, dropHint: dropHint || undefined });
    let piped: Piped;
    try {
      absolutePaths(tool, params, this.env);
      piped = await callThrough(tool.def, params, { paths: this.paths, env: this.env, save: "asked", send });
    } catch (e) {
      return toolError(asBskError(e), tool);
    }
    if (piped.stage === "before") return toolError(piped.error, tool, opId ? { op_id: opId } : undefined);
    const { reply } = piped;
    const op: OpFacts | undefined = opId
      ? { op_id: opId, effect_state: reply.meta?.effect_state, replayed: reply.meta?.replayed }
      : undefined;
    if (piped.stage === "reply") return toolError(piped.reply.error, tool, op);
    this.track(tool, piped.reply.result);
    if (piped.stage === "after") return toolError(piped.error, tool, opId ? { op_id: opId } : undefined);
    const saved = piped.result as Record<string, unknown>;
    // A download written here (a full-page capture) also goes back as an image when it is one and small enough.
    if (tool.def.transfer?.download && saved && typeof saved.path === "string")
      return toolResult(tool, saved, await imageBytes(saved.path), op);
    return toolResult(tool, saved, undefined, op);
  }

  private track(tool: McpTool, result: unknown): void {
    const r = result as { session_id?: unknown; stopped?: unknown } | null;
    if (tool.method === "session.start" && typeof r?.session_id === "string") this.sessions.add(r.session_id);
    if (tool.method === "session.stop" && Array.isArray(r?.stopped)) for (const id of r.stopped) this.sessions.delete(String(id));
  }

  /** Stop every session this server started; failures (already ended, daemon gone) are ignored. */
  async stopSessions(): Promise<void> {
    const ids = [...this.sessions];
    this.sessions.clear();
    await Promise.all(
      ids.map(async (session_id) => {
        const conn = await reachDaemon(this.paths, this.env, false).catch(() => null);
        if (!conn) return;
        await request(conn, "session.stop", { session_id }, { timeoutMs: STOP_TIMEOUT_MS }).finally(() => conn.close());
      }),
    );
  }
}

async function imageBytes(path: string): Promise<Uint8Array | undefined> {
  const file = Bun.file(path);
  if (!/\.(png|jpe?g)$/i.test(path) || file.size > MAX_INLINE_IMAGE_BYTES) return undefined;
  return new Uint8Array(await file.arrayBuffer());
}

/** The MCP server over a bridge: its instructions, tools/list and tools/call (connected to a transport by the caller). */
export function mcpServer(bridge: McpBridge, offered: { profile: string; of: number }): Server {
  const server = new Server(
    { name: "bsk", version: APP_VERSION },
    { capabilities: { tools: {} }, instructions: instructions(new Set(bridge.tools.map((t) => t.name)), offered) },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: bridge.tools.map(listedTool) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) =>
    bridge.callTool(req.params.name, req.params.arguments, extra.signal),
  );
  return server;
}

/** Serve until stdin closes or a signal; returns the exit code. */
export async function serveMcp(env: Env, selection: ToolSelection, of: number): Promise<number> {
  const bridge = new McpBridge(homePaths(bskHome(env), env), env, selection.tools);
  const server = mcpServer(bridge, { profile: selection.profile, of });

  let done: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => (done = resolve));
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await bridge.stopSessions().catch(() => undefined);
    await server.close().catch(() => undefined);
    done(0);
  };
  process.stdin.on("end", shutdown);
  process.stdin.on("close", shutdown);
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  server.onclose = () => void shutdown();

  await server.connect(new StdioServerTransport());
  return finished;
}

/** `bsk mcp [--tools core|all|LIST]`: stdout belongs to the MCP protocol, so nothing is printed around it. */
export async function mcpCommand({ env, params }: { env: Env; params: Record<string, unknown> }): Promise<Outcome> {
  const all = mcpTools();
  const selection = selectTools(typeof params.tools === "string" ? params.tools : undefined, all);
  return { ok: true, format: "none", result: null, exitCode: await serveMcp(env, selection, all.length) };
}
