/** Renders the catalog and frames as JSON Schema files (path → text). Written by `npm run gen`. */
import { z } from "zod";
import { EFFECTS, METHOD_NAMES, METHODS } from "./catalog.ts";
import type { MethodDef } from "./define.ts";
import { EVENTS } from "./events.ts";
import { CALL_PROGRESS, CallProgress, EventFrame, RequestFrame, ResponseFrame } from "./frames.ts";
import { RecordTrace, TRACE_VERSION } from "./trace.ts";
import { PROTOCOL_VERSION } from "./version.ts";

const DRAFT = "https://json-schema.org/draft/2020-12/schema";

function schema(t: z.ZodType, io: "input" | "output") {
  const { $schema: _, ...rest } = z.toJSONSchema(t, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/**
 * A method's params as JSON Schema, closed: a param the method does not take is not allowed
 * (`additionalProperties: false`), as the MCP server enforces for its tools (cli/mcp/server.ts).
 */
export function paramsJsonSchema(def: Pick<MethodDef, "params">): Record<string, unknown> {
  return { ...schema(def.params(), "input"), additionalProperties: false };
}

function text(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function renderSchemas(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of METHOD_NAMES) {
    const def = METHODS[name];
    files[`methods/${name}.json`] = text({
      $schema: DRAFT,
      title: name,
      description: def.description,
      "x-protocol-version": PROTOCOL_VERSION,
      "x-effect": EFFECTS[name],
      "x-owner": def.owner,
      "x-scope": def.scope,
      ...(def.cli ? { "x-cli": `bsk ${def.cli.words.join(" ")}` } : {}),
      properties: {
        params: paramsJsonSchema(def),
        result: schema(def.result(), "output"),
      },
    });
  }
  for (const [name, payload] of Object.entries(EVENTS)) {
    files[`events/${name}.json`] = text({ $schema: DRAFT, title: name, ...schema(payload(), "output") });
  }
  files["trace.json"] = text({
    $schema: DRAFT,
    title: "bsk record trace",
    "x-trace-version": TRACE_VERSION,
    ...schema(RecordTrace(), "output"),
  });
  files["frames.json"] = text({
    $schema: DRAFT,
    title: "bsk frames",
    "x-protocol-version": PROTOCOL_VERSION,
    $defs: {
      request: schema(RequestFrame, "output"),
      response: schema(ResponseFrame, "output"),
      event: schema(EventFrame, "output"),
      [CALL_PROGRESS]: schema(CallProgress, "output"),
    },
  });
  return files;
}
