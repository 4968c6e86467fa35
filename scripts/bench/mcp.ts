/**
 * bsk's MCP path in the peer lane: one long-lived `bsk mcp` (as an MCP client such as Claude Code keeps it), each
 * call a `tools/call` timed from the client's send to its reply. It pays no process start, which is what separates
 * it from the CLI column: the same daemon, extension and page work, without a Bun runtime starting per call.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
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
