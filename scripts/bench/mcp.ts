/**
 * bsk's MCP path in the peer lane: one long-lived `bsk mcp` (as an MCP client such as Claude Code keeps it), each
 * call a `tools/call` timed from the client's send to its reply. It pays no process start, which is what separates
 * it from the CLI column: the same daemon, extension and page work, without a Bun runtime starting per call.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { BSK } from "../world.ts";

export interface McpCall {
  tool: string;
  args: (i: number) => Record<string, unknown>;
}

export class McpLane {
  private constructor(private readonly client: Client) {}

  /** `bsk`: the binary serving it (another build's, in the --against lane). */
  static async start(env: Record<string, string>, bsk = BSK): Promise<McpLane> {
    const client = new Client({ name: "bsk-bench", version: "1" });
    await client.connect(new StdioClientTransport({ command: bsk, args: ["mcp", "--tools", "all"], env, stderr: "ignore" }));
    return new McpLane(client);
  }

  /** One tools/call, in ms; a tool error is a failed bench, never a fast sample. */
  async time(call: McpCall, i: number): Promise<number> {
    const t0 = performance.now();
    const r = await this.client.callTool({ name: call.tool, arguments: call.args(i) });
    const ms = performance.now() - t0;
    if (r.isError) throw new Error(`mcp ${call.tool}: ${JSON.stringify(r.content).slice(0, 300)}`);
    return ms;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The MCP listing's goal (issue 39): the default profile's whole tools/list reply, as sent, in o200k tokens. */
export const MCP_LISTING_GOAL = 4_000;

export interface McpListing {
  profile: string;
  tools: number;
  bytes: number;
  tokens: number;
  goal: number;
}

/**
 * What `bsk mcp` (default profile) writes to stdout for tools/list, read off the pipe as a client receives it: the
 * JSON-RPC line, counted whole in o200k tokens (as snapshot-size.ts counts snapshots). No daemon is needed.
 */
export async function mcpListing(env: Record<string, string>, bsk = BSK): Promise<McpListing> {
  const proc = Bun.spawn([bsk, "mcp"], { env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  try {
    const send = (m: object) => proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
    send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bsk-bench", version: "1" } },
    });
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/list" });
    await proc.stdin.flush();
    let buffered = "";
    const decoder = new TextDecoder();
    const reader = proc.stdout.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      buffered += decoder.decode(r.value, { stream: true });
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const line = buffered.slice(0, nl + 1);
        buffered = buffered.slice(nl + 1);
        const reply = JSON.parse(line) as { id?: number; result?: { tools: unknown[] } };
        if (reply.id !== 2) continue;
        if (!reply.result) throw new Error(`bsk mcp: tools/list failed: ${line.slice(0, 300)}`);
        const bytes = new TextEncoder().encode(line).length;
        return { profile: "core", tools: reply.result.tools.length, bytes, tokens: countTokens(line), goal: MCP_LISTING_GOAL };
      }
    }
    throw new Error("bsk mcp closed its stdout before answering tools/list");
  } finally {
    proc.kill();
    await proc.exited;
  }
}

export function printListing(l: McpListing): void {
  const verdict = l.tokens <= l.goal ? "ok" : "OVER";
  console.log(
    `\nMCP listing on the wire (bsk mcp, ${l.profile}: ${l.tools} tools): ${l.tokens} o200k tokens, ${l.bytes} bytes; goal ≤ ${l.goal}: ${verdict}`,
  );
}
