/**
 * Every command the CLI knows, whole: the catalog's methods (inlined at build time by a macro, no zod at run time)
 * plus the CLI-only commands (local-table.ts), each one entry: its shape. For help, completion, errors and `bsk mcp`;
 * a call to the daemon finds its command through command-index.ts and loads only that command's part (cli/specs/).
 */
import { catalogCommands } from "./catalog-table.ts" with { type: "macro" };
import type { CommandSpec } from "./command-spec.ts";
import { LOCAL_COMMANDS } from "./local-table.ts";

const CATALOG: CommandSpec[] = catalogCommands();

export const COMMANDS: readonly CommandSpec[] = [...CATALOG, ...LOCAL_COMMANDS];
