/**
 * Tool results as MCP content. Most results are their JSON object as text; a snapshot is its text (what an agent
 * reads anyway); a screenshot is image content plus a one-line summary. Errors are `isError` results whose text
 * says `error:` and `hint:` like the CLI, with the code and data also in structured form.
 */
import { type BskError, ERRORS, hintFor } from "../../protocol/errors.ts";
import { redact } from "../output.ts";
import type { McpTool } from "./tools.ts";

export type Content = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

export interface ToolResult {
  content: Content[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Images larger than this go back as a path only (clients cap inline images at a few MB). */
export const MAX_INLINE_IMAGE_BYTES = 4 * 1024 * 1024;

const SNAPSHOT_METHODS: ReadonlySet<string> = new Set(["snapshot", "observe"]);

const text = (t: string): Content => ({ type: "text", text: t });

function snapshotContent(tool: McpTool, r: Record<string, unknown>): Content[] {
  const more = r.truncated && r.cursor ? `\n-- more: call ${tool.name} with cursor "${String(r.cursor)}"` : "";
  return [text(`${String(r.text ?? "")}${more}`)];
}

function imageContent(r: Record<string, unknown>, dataKey: string, inline?: Uint8Array): Content[] {
  const { [dataKey]: data, ...rest } = r;
  const mimeType = r.format === "jpeg" ? "image/jpeg" : "image/png";
  const b64 = typeof data === "string" ? data : inline ? inline.toBase64() : undefined;
  const summary = text(JSON.stringify(rest));
  return b64 ? [{ type: "image", data: b64, mimeType }, summary] : [summary];
}

/** A mutation's op id and what the daemon knows of its effect, as the CLI's --json shows them. */
export interface OpFacts {
  op_id?: string;
  effect_state?: string;
  replayed?: boolean;
}

function facts(op: OpFacts | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(op ?? {}).filter(([, v]) => v !== undefined && v !== false));
}

/**
 * `fileBytes`: the bytes of a result written to a local file (a full-page capture), shown inline when small enough.
 * `op`: a mutation's op id and effect_state, added to its JSON.
 */
export function toolResult(tool: McpTool, result: unknown, fileBytes?: Uint8Array, op?: OpFacts): ToolResult {
  const r = result && typeof result === "object" ? (result as Record<string, unknown>) : null;
  if (r && SNAPSHOT_METHODS.has(tool.method)) return { content: snapshotContent(tool, r) };
  if (r && tool.def.fileResult) return { content: imageContent(r, tool.def.fileResult.data) };
  if (r && fileBytes && fileBytes.length <= MAX_INLINE_IMAGE_BYTES) return { content: imageContent({ ...r, ...facts(op) }, "", fileBytes) };
  return { content: [text(JSON.stringify(r ? { ...r, ...facts(op) } : (result ?? null)))] };
}

/** The CLI's generic hint for bad arguments points at --help; a tool's arguments are checked against its schema. */
const SCHEMA_HINT = "Check the arguments against the tool's input schema (tools/list).";

export function toolError(e: BskError, tool?: Pick<McpTool, "def" | "reword">, op?: OpFacts): ToolResult {
  const redactKeys = tool?.def.redact ?? [];
  const reword = tool?.reword ?? ((s: string) => s);
  let hint = e.hint || hintFor(e.code, e.data?.reason);
  if (e.code === "invalid_params" && hint === ERRORS.invalid_params.hint) hint = SCHEMA_HINT;
  hint = reword(hint);
  const message = reword(e.message);
  const data = { ...redact(e.data ?? {}, redactKeys), ...facts(op) };
  const lines = [`error: ${message}`, `hint: ${hint}`, `code: ${e.code}`];
  const { reason: _reason, ...rest } = data;
  if (Object.keys(rest).length) lines.push(`detail: ${JSON.stringify(rest)}`);
  return {
    isError: true,
    content: [text(lines.join("\n"))],
    structuredContent: { error: { code: e.code, message, hint, data } },
  };
}
