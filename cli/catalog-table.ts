/**
 * The catalog's CLI shapes as plain data. Runs as a Bun macro (`import … with { type: "macro" }` in
 * cli/commands-table.ts): the bundler (and the runtime transpiler) evaluates it against protocol/catalog.ts
 * and inlines the result, so the CLI carries every command, flag and description without importing zod
 * or building a single schema at start-up. Nothing here may be a function: the value is serialised.
 */
import { cliMethods } from "../protocol/catalog.ts";
import type { CliShape, Effect, FlagSpec, JsonFileSpec, PositionalSpec, Scope, TransferSpec } from "../protocol/define.ts";

export interface CatalogCommand {
  method: string;
  words: string[];
  description: string;
  scope: Scope;
  effect: Effect;
  positionals: PositionalSpec[];
  flags: Record<string, FlagSpec>;
  examples: string[];
  /** Params key holding the method's own wait in ms (the CLI waits that long too). */
  waitParam?: string;
  /** Params never echoed (fill's value, type's text). */
  redact?: string[];
  /** The result carries base64 bytes the CLI writes to a file. */
  fileResult?: { data: string; pathParam: string; defaultName: string };
  /** The result carries a JSON document the CLI writes to a file. */
  jsonFile?: JsonFileSpec;
  /** Files moved through the daemon's staging (upload sources, download and full-page destinations). */
  transfer?: TransferSpec;
  defaultTimeoutMs?: number;
  /** `--<flag>` → the command with these words. */
  variants?: Record<string, string[]>;
}

export function catalogCommands(): CatalogCommand[] {
  return cliMethods().map(({ name, def }) => {
    const cli = def.cli as CliShape;
    const cmd: CatalogCommand = {
      method: name,
      words: [...cli.words],
      description: def.description,
      scope: def.scope,
      effect: def.effect,
      positionals: (cli.positionals ?? []).map((p) => ({ ...p })),
      flags: Object.fromEntries(Object.entries(cli.flags ?? {}).map(([k, f]) => [k, { ...f, options: f.options && [...f.options] }])),
      examples: [...(cli.examples ?? [])],
    };
    if (def.waitParam) cmd.waitParam = def.waitParam;
    if (def.redact) cmd.redact = [...def.redact];
    if (def.fileResult) cmd.fileResult = { ...def.fileResult };
    if (def.jsonFile) cmd.jsonFile = { ...def.jsonFile };
    if (def.transfer) cmd.transfer = JSON.parse(JSON.stringify(def.transfer));
    if (cli.defaultTimeoutMs) cmd.defaultTimeoutMs = cli.defaultTimeoutMs;
    if (cli.variants) cmd.variants = Object.fromEntries(Object.entries(cli.variants).map(([k, w]) => [k, [...w]]));
    // JSON round trip: drops undefined fields, so the inlined literal is exactly what a test compares.
    return JSON.parse(JSON.stringify(cmd)) as CatalogCommand;
  });
}
