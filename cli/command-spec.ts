/**
 * The one shape of a CLI command: the catalog's (cli/catalog-table.ts, inlined at build time) and the CLI's own
 * (cli/commands-table.ts) alike: types, and the name a command goes by.
 */
import type { HomePaths } from "../shared/home.ts";
import type { Effect, FileResultSpec, FlagSpec, JsonFileSpec, PositionalSpec, Scope, TransferSpec } from "../protocol/define.ts";

export interface CommandSpec {
  /** Command words after `bsk`, e.g. ["tab", "list"]. */
  words: string[];
  description: string;
  scope: Scope;
  positionals: PositionalSpec[];
  flags: Record<string, FlagSpec>;
  examples: string[];
  /** The method sent to the daemon (catalog commands). */
  method?: string;
  effect?: Effect;
  /** Params key holding the method's own wait in ms (the CLI waits that long too), and its default from the schema. */
  waitParam?: string;
  waitDefaultMs?: number;
  /** Params never echoed (fill's value, type's text). */
  redact?: string[];
  fileResult?: FileResultSpec;
  jsonFile?: JsonFileSpec;
  transfer?: TransferSpec;
  defaultTimeoutMs?: number;
  /** `--<flag>` → the command with these words. */
  variants?: Record<string, string[]>;
  /** Only its own flags and --help: the common ones (--session, --json) would do nothing there (`bsk mcp`). */
  ownFlagsOnly?: boolean;
  /** A CLI-only command: its name (the human formatter's key, and its runner in local-commands.ts). */
  local?: string;
}

/** `bsk <words>` as shown in help and errors. */
export function commandName(cmd: Pick<CommandSpec, "words">): string {
  return `bsk ${cmd.words.join(" ")}`;
}

/** What a CLI-only command is given. */
export interface LocalContext {
  paths: HomePaths;
  env: Record<string, string | undefined>;
  params: Record<string, unknown>;
  json: boolean;
}
