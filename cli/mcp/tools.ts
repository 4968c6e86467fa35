/**
 * The catalog as MCP tools: every agent-facing method with a CLI shape becomes a tool named after the method
 * (`tab.list` → `tab_list`), with the method's description, its params schema as JSON Schema (closed: nothing but
 * its properties, which server.ts enforces) and annotations from its effect class. Nothing here is written twice:
 * a new catalog method is a new tool.
 * Where the tool takes other params than the wire, the catalog says so: file params (MethodDef.transfer, fileResult,
 * jsonFile) are paths this server reads and writes, and MethodDef.mcp hides the params the server fills or cannot carry.
 */
import { EFFECTS, METHOD_NAMES, METHODS, type MethodName } from "../../protocol/catalog.ts";
import { type CliShape, type Effect, flagParam, type MethodDef } from "../../protocol/define.ts";
import { paramsJsonSchema } from "../../protocol/json-schema.ts";

export interface JsonSchemaObject {
  type: "object";
  properties: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface McpTool {
  name: string;
  method: MethodName;
  description: string;
  inputSchema: JsonSchemaObject;
  annotations: ToolAnnotations;
  /** The method as the catalog defines it (scope, effect, redact, file specs, `mcp.hidden`): read there, never copied. */
  def: MethodDef;
  /** CLI wording (commands, flags) in this tool's terms, for messages that come back from the daemon. */
  reword: (text: string) => string;
}

export function toolName(method: string): string {
  return method.replace(/\./g, "_");
}

/** Methods an agent calls (catalog `callers`); not the daemon's administration (`bsk daemon pair`, …) nor wire methods. */
export function isAgentMethod(name: string): boolean {
  return METHODS[name as MethodName]?.callers === "agent";
}

export function annotationsFor(method: string, effect: Effect, def: MethodDef): ToolAnnotations {
  const readOnly = effect === "PassiveRead" || def.readsOnly === true;
  return {
    title: `bsk ${def.cli?.words.join(" ") ?? method}`,
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && effect === "BrowserMutation",
    idempotentHint: readOnly || effect === "TransientInput",
    openWorldHint: def.owner === "extension",
  };
}

/** Command words (`tab list`) → the tool and CLI shape of that command, for rewriting CLI wording in descriptions. */
type CommandIndex = Map<string, { tool: string; shape: CliShape }>;

function commandIndex(): CommandIndex {
  const index: CommandIndex = new Map();
  // Only commands that are tools: `bsk daemon …` stays a command the person runs.
  for (const name of METHOD_NAMES.filter(isAgentMethod)) {
    const cli = METHODS[name].cli as CliShape;
    index.set(cli.words.join(" "), { tool: toolName(name), shape: cli });
  }
  return index;
}

/**
 * CLI wording in a description, as an MCP client sees it: `bsk tab list` → `tab_list`, `--max-tokens` → `max_tokens`,
 * "the CLI" (which reads and writes local files) → "this server", which does that here.
 * A flag is looked up in the method's own shape, then in the shape of the last command the text named.
 */
export function mcpWording(text: string, own: CliShape | undefined, index: CommandIndex): string {
  let named: CliShape | undefined;
  const withTools = text.replace(/\bbsk ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)*)/g, (whole, words: string) => {
    const parts = words.split(" ");
    for (let n = parts.length; n > 0; n--) {
      const hit = index.get(parts.slice(0, n).join(" "));
      if (hit) {
        named = hit.shape;
        return [hit.tool, ...parts.slice(n)].join(" ");
      }
    }
    return whole;
  });
  const served = withTools.replace(/\b([Tt])he CLI\b/g, (_, t: string) => `${t}his server`);
  return served.replace(/--([a-z][a-z-]*)/g, (whole, flag: string) => {
    for (const shape of [own, named]) {
      const spec = shape?.flags?.[flag];
      if (spec) return flagParam(flag, spec);
      const variant = shape?.variants?.[flag];
      if (variant) return index.get(variant.join(" "))?.tool ?? whole;
    }
    return whole;
  });
}

const SAFE_INT = Number.MAX_SAFE_INTEGER;

/** Lengths a model never comes near; the daemon still enforces them (invalid_params). */
const LONG_STRING = 32;

/**
 * What a model gains nothing from but pays for in every listing: bounds that only restate "an integer" (±2^53),
 * "non-empty" and string lengths it never comes near, and defaults that are the absent value (false, []).
 */
function unsaid(k: string, v: unknown): boolean {
  if ((k === "minimum" && v === -SAFE_INT) || (k === "maximum" && v === SAFE_INT)) return true;
  if ((k === "minLength" && v === 1) || (k === "maxLength" && typeof v === "number" && v >= LONG_STRING)) return true;
  return k === "default" && (v === false || (Array.isArray(v) && v.length === 0));
}

/** Rewrites descriptions and drops what `unsaid` names, and an array item's description under the array's own. */
function tidy(node: unknown, reword: (s: string) => string): unknown {
  if (Array.isArray(node)) return node.map((n) => tidy(n, reword));
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$schema" || unsaid(k, v)) continue;
    out[k] = k === "description" && typeof v === "string" ? reword(v) : tidy(v, reword);
  }
  const items = out.items as Record<string, unknown> | undefined;
  if (out.description && items && typeof items === "object" && "description" in items) delete items.description;
  return out;
}

/** Offered by every page-changing tool: the request's op id (RequestMeta.op_id), the CLI's --op-id. */
export const OP_ID_PARAM = "op_id";
const OP_ID_SCHEMA = {
  type: "string",
  description: "Idempotency key for safe retries",
};

/** Where a path the server reads or writes is taken from. */
const LOCAL_PATH = "a path on this server's machine (relative to its working directory; ~ for home)";

/**
 * The file params as this server takes them (server.ts): local paths it reads or writes itself, where the wire
 * carries staged transfers or the CLI's defaults. The wire schema keeps its bounds; what the value is changes.
 */
function fileParams(def: MethodDef, properties: Record<string, object>): void {
  const upload = def.transfer?.upload;
  if (upload && properties[upload]) {
    const { minItems, maxItems } = properties[upload] as { minItems?: number; maxItems?: number };
    properties[upload] = {
      type: "array",
      items: { type: "string", minLength: 1 },
      minItems,
      maxItems,
      description: `Files to upload, each ${LOCAL_PATH}`,
    };
  }
  const described = (param: string, what: string, more: string) => {
    if (properties[param]) properties[param] = { ...properties[param], description: `${what}: ${LOCAL_PATH}. ${more}` };
  };
  const download = def.transfer?.download;
  if (download?.overwriteParam)
    described(download.pathParam, "Where to save the file", `An existing file is replaced only with ${download.overwriteParam}.`);
  else if (download)
    described(
      download.pathParam,
      "Where to save the file",
      "A directory gets a new file in it; default: a new file in the temp directory.",
    );
  if (def.fileResult)
    described(
      def.fileResult.pathParam,
      "Also save the image to this file",
      "A directory gets a new file in it; without it nothing is written.",
    );
  if (def.jsonFile) {
    const { data, pathParam, overwriteParam } = def.jsonFile;
    described(
      pathParam,
      `Also save the ${data} to this file`,
      `An existing file is replaced only with ${overwriteParam}; without it nothing is written.`,
    );
  }
}

export function inputSchemaFor(method: MethodName, reword: (s: string) => string = (s) => s): JsonSchemaObject {
  const def = METHODS[method] as MethodDef;
  const schema = tidy(paramsJsonSchema(def), reword) as JsonSchemaObject;
  schema.properties ??= {};
  for (const hidden of def.mcp?.hidden ?? []) {
    delete schema.properties[hidden];
    if (schema.required) schema.required = schema.required.filter((r) => r !== hidden);
  }
  fileParams(def, schema.properties);
  if (EFFECTS[method] === "BrowserMutation") schema.properties[OP_ID_PARAM] = OP_ID_SCHEMA;
  return schema;
}

/** What a tool returns over MCP, where that differs from the CLI (which writes files and prints paths). */
function resultNote(def: MethodDef): string {
  if (def.fileResult) return " Returns the image itself (also written to `out` when given).";
  if (def.transfer?.download) return " Returns the path of the file written (the image itself too when it is small).";
  if (def.jsonFile) return ` Returns the ${def.jsonFile.data} (also written to \`${def.jsonFile.pathParam}\` when given).`;
  return "";
}

/**
 * A tool as tools/list sends it. Annotations leave out what the MCP spec's defaults already say (openWorldHint true,
 * idempotentHint false), the hints it calls meaningless for a read-only tool, and the title, which only repeats the
 * name for a person's eyes (clients show the name).
 */
export function listedTool(t: McpTool) {
  const a = t.annotations;
  return {
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    annotations: {
      readOnlyHint: a.readOnlyHint,
      ...(!a.readOnlyHint && { destructiveHint: a.destructiveHint, ...(a.idempotentHint && { idempotentHint: true }) }),
      ...(!a.openWorldHint && { openWorldHint: false }),
    },
  };
}

export function mcpTools(): McpTool[] {
  const index = commandIndex();
  return METHOD_NAMES.filter(isAgentMethod).map((method) => {
    const def = METHODS[method] as MethodDef;
    const shape = def.cli as CliShape;
    const reword = (s: string) => mcpWording(s, shape, index);
    return {
      name: toolName(method),
      method,
      description: reword(def.mcp?.description ?? def.description) + resultNote(def),
      inputSchema: inputSchemaFor(method, reword),
      annotations: annotationsFor(method, EFFECTS[method], def),
      def,
      reword,
    };
  });
}
