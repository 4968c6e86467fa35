/**
 * The least a tool call can carry: each required argument of an MCP tool's input schema with a value of its type.
 * Strings are paths that lead nowhere, so a call that did run would write nothing; `given` fills named ones.
 */
type Prop = { type?: string; enum?: unknown[]; minimum?: number; items?: Prop };

function sampleValue(p: Prop): unknown {
  if (p.enum) return p.enum[0];
  if (p.type === "integer" || p.type === "number") return Math.max(1, p.minimum ?? 1);
  if (p.type === "boolean") return false;
  if (p.type === "array") return [sampleValue(p.items ?? {})];
  if (p.type === "object") return {};
  return "/nonexistent/bsk-mcp-args";
}

export function minimalArgs(
  schema: { properties?: Record<string, object>; required?: string[] },
  given: Record<string, unknown> = {},
): Record<string, unknown> {
  const required = schema.required ?? [];
  return Object.fromEntries(required.map((k) => [k, k in given ? given[k] : sampleValue((schema.properties?.[k] ?? {}) as Prop)]));
}
