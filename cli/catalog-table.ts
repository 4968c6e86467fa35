/**
 * The catalog's CLI shapes as plain data. Runs as a Bun macro (`import … with { type: "macro" }` in
 * cli/commands-table.ts): the bundler (and the runtime transpiler) evaluates it against protocol/catalog.ts
 * and inlines the result, so the CLI carries every command, flag and description without importing zod
 * or building a single schema at start-up. Nothing here may be a function: the value is serialised.
 *
 * A flag's param, type, options, default and description come from the method's zod params unless the catalog's
 * `cli` says otherwise (cli/README.md: what a catalog flag keeps).
 */
import type { z } from "zod";
import { cliMethods } from "../protocol/catalog.ts";
import { type CliFlag, type CliShape, flagParam, type FlagSpec } from "../protocol/define.ts";
import type { CommandSpec } from "./command-spec.ts";
import { LOCAL_COMMANDS } from "./local-table.ts";

/** zod's internals, as far as a flag reads them. */
interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  defaultValue?: unknown;
  shape?: Record<string, z.ZodType>;
  entries?: Record<string, string>;
  element?: z.ZodType;
}
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: ZodDef } })._zod.def;
const WRAPPERS = new Set(["optional", "nullable", "readonly", "nonoptional", "default", "prefault", "pipe"]);

/** A param's schema under its wrappers, with the default and description the wrappers hold. */
function unwrap(schema: z.ZodType): { core: ZodDef; description?: string; default?: unknown } {
  let s = schema;
  const out: { description?: string; default?: unknown } = {};
  for (;;) {
    out.description ??= s.description;
    const d = defOf(s);
    if (!WRAPPERS.has(d.type)) return { core: d, ...out };
    if ((d.type === "default" || d.type === "prefault") && !("default" in out)) out.default = d.defaultValue;
    s = (d.type === "pipe" ? d.in : d.innerType)!;
  }
}

function paramSchema(params: z.ZodType, key: string): z.ZodType | undefined {
  let d = defOf(params);
  while (d.type === "pipe") d = defOf(d.in!);
  return d.shape?.[key];
}

/** A default in help: a duration in its largest whole unit above 1 (`60s`, `1500ms`, `5m`). */
function helpDuration(ms: number): string {
  for (const [unit, size] of [
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
  ] as const) {
    if (ms % size === 0 && ms / size > 1) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** What a catalog flag leaves out, from its param: "nothing" defaults (false, 0, [], a fixed `value`) are not shown. */
function resolveFlag(method: string, name: string, flag: CliFlag, params: z.ZodType): FlagSpec {
  const param = flagParam(name, flag);
  const schema = paramSchema(params, param);
  if (!schema) throw new Error(`${method} --${name}: the params have no ${param}`);
  const { core, description, default: dflt } = unwrap(schema);
  const element = core.type === "array" ? unwrap(core.element!).core : undefined;
  const enumOf = core.type === "enum" ? core : element?.type === "enum" ? element : undefined;
  const types: Record<string, FlagSpec["type"]> = { string: "string", number: "number", boolean: "boolean", enum: "enum", array: "list" };
  const type = flag.type ?? types[core.type];
  if (!type) throw new Error(`${method} --${name}: say the flag's type (its param is a ${core.type})`);
  const out: FlagSpec = { ...flag, param, type, description: flag.description ?? description ?? "" };
  if (!out.description) throw new Error(`${method} --${name}: describe the flag or its param`);
  if (!flag.options && enumOf) out.options = Object.values(enumOf.entries!);
  const shown = dflt !== undefined && dflt !== false && dflt !== 0 && !(Array.isArray(dflt) && !dflt.length) && flag.value === undefined;
  if (flag.default === undefined && shown) out.default = type === "duration" ? helpDuration(Number(dflt)) : (dflt as FlagSpec["default"]);
  return out;
}

/** The real default of a param (e.g. tab borrow's timeout_ms), not a help text. */
function paramDefault(params: z.ZodType, key: string): unknown {
  const schema = paramSchema(params, key);
  return schema && unwrap(schema).default;
}

export function catalogCommands(): CommandSpec[] {
  return cliMethods().map(({ name, def }) => {
    const cli = def.cli as CliShape;
    const params = def.params();
    const cmd: CommandSpec = {
      method: name,
      words: [...cli.words],
      description: def.description,
      scope: def.scope,
      effect: def.effect,
      positionals: (cli.positionals ?? []).map((p) => ({ ...p })),
      flags: Object.fromEntries(Object.entries(cli.flags ?? {}).map(([k, f]) => [k, resolveFlag(name, k, f, params)])),
      examples: [...(cli.examples ?? [])],
    };
    if (def.waitParam) {
      cmd.waitParam = def.waitParam;
      const ms = paramDefault(params, def.waitParam);
      if (typeof ms === "number") cmd.waitDefaultMs = ms;
    }
    if (def.redact) cmd.redact = [...def.redact];
    if (def.fileResult) cmd.fileResult = { ...def.fileResult };
    if (def.jsonFile) cmd.jsonFile = { ...def.jsonFile };
    if (def.transfer) cmd.transfer = JSON.parse(JSON.stringify(def.transfer));
    if (cli.defaultTimeoutMs) cmd.defaultTimeoutMs = cli.defaultTimeoutMs;
    if (cli.variants) cmd.variants = Object.fromEntries(Object.entries(cli.variants).map(([k, w]) => [k, [...w]]));
    // JSON round trip: drops undefined fields, so the inlined literal is exactly what a test compares.
    return JSON.parse(JSON.stringify(cmd)) as CommandSpec;
  });
}

/**
 * How many parts the catalog's commands are cut into for the call path (cli/specs/part-N.ts, one module each): a
 * call loads the index and its command's part, never the whole table. Parts follow the catalog's order, so a
 * command's neighbours (tab list, tab new, …) travel together.
 */
export const CATALOG_PARTS = 6;

/** Part `n` of the catalog's commands (0-based). */
export function catalogPart(n: number): CommandSpec[] {
  const all = catalogCommands();
  return all.filter((_, i) => Math.floor((i * CATALOG_PARTS) / all.length) === n);
}

/** Which part holds each command, by its words ("tab list"); a CLI-only command is -1 (the whole table). */
export function commandIndex(): Record<string, number> {
  const all = catalogCommands();
  const index: Record<string, number> = {};
  all.forEach((c, i) => {
    index[c.words.join(" ")] = Math.floor((i * CATALOG_PARTS) / all.length);
  });
  for (const c of LOCAL_COMMANDS) index[c.words.join(" ")] = -1;
  return index;
}
