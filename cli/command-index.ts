/**
 * The command index, at the bottom of the CLI: every command's words ("tab list") and which part of the catalog holds
 * its shape (inlined at build time by a macro: words and numbers only, no descriptions, no flags). A call to the
 * daemon routes through it and loads its own command's part (cli/specs/part-N.ts); the whole table (commands-table.ts)
 * is loaded only for help, completion, an error's suggestions and the CLI-only commands.
 */
import { commandIndex } from "./catalog-table.ts" with { type: "macro" };
import type { CommandSpec } from "./command-spec.ts";

/** words → the catalog part that holds the command (-1: a CLI-only command, in the whole table). */
const INDEX: Record<string, number> = commandIndex();

/**
 * Whether some command's words start with `words` (["tab"] does: tab list, tab new, …). A scan, not a set of every
 * prefix: a call asks this once or twice, and building the set cost more than the scans (~0.4 ms a call).
 */
export function startsCommand(words: readonly string[]): boolean {
  const key = words.join(" ");
  if (Object.hasOwn(INDEX, key)) return true;
  const start = `${key} `;
  for (const k in INDEX) if (k.startsWith(start)) return true;
  return false;
}

/**
 * The catalog command with exactly these words, loading only its part; undefined for a CLI-only command or words
 * that name none (the caller then uses the whole table).
 */
export async function catalogCommand(words: readonly string[]): Promise<CommandSpec | undefined> {
  const key = words.join(" ");
  const part = Object.hasOwn(INDEX, key) ? INDEX[key]! : -1;
  if (part === -1) return undefined;
  const { PART } = await PARTS[part]!();
  return PART.find((c) => c.words.join(" ") === key);
}

/** One import per part, each its own chunk in the build (a path the bundler can see, not an expression). */
const PARTS: (() => Promise<{ PART: CommandSpec[] }>)[] = [
  () => import("./specs/part-0.ts"),
  () => import("./specs/part-1.ts"),
  () => import("./specs/part-2.ts"),
  () => import("./specs/part-3.ts"),
  () => import("./specs/part-4.ts"),
  () => import("./specs/part-5.ts"),
];
