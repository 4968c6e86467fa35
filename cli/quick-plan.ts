/**
 * The call path's plan: a catalog command found through the index (command-index.ts), its part loaded alone. Loaded
 * by run.ts from the bundle only: from source the index's macros would build the catalog on every start, and the
 * whole table (cached by Bun's transpiler) is quicker there.
 */
import { splitWords, wantsHelp } from "./argv-words.ts";
import { catalogCommand, startsCommand } from "./command-index.ts";
import { type Plan, planCommand } from "./plan.ts";

/**
 * undefined for anything but a catalog command (help, a CLI-only command, a variant flag, words that name nothing):
 * router.ts's `plan` with the whole table answers those, the same way.
 */
export async function quickPlan(argv: readonly string[], env: Record<string, string | undefined>): Promise<Plan | undefined> {
  if (wantsHelp(argv)) return undefined;
  const { words, rest } = splitWords(argv, startsCommand);
  const cmd = words.length ? await catalogCommand(words) : undefined;
  if (!cmd || (cmd.variants && Object.keys(cmd.variants).some((flag) => rest.includes(`--${flag}`)))) return undefined;
  return planCommand(cmd, rest, env);
}
