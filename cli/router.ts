/**
 * argv → which command, with the whole table (commands-table.ts): help, errors with suggestions, CLI-only commands,
 * and `plan` for callers that have no daemon call to hurry (tests, `bsk mcp`). The words are split as the call path
 * splits them (command-index.ts, splitWords); a call to the daemon goes through quick-plan.ts instead.
 */
import { BskError } from "../protocol/errors.ts";
import type { ArgsIo } from "./args.ts";
import type { CommandSpec } from "./command-spec.ts";
import { COMMANDS } from "./commands-table.ts";
import { isFlagToken, splitWords, wantsHelp } from "./argv-words.ts";
import { type Ids, type Plan, planCommand, randomIds, wantsJson } from "./plan.ts";
import { closest, COMMAND_SYNONYMS } from "./suggest.ts";

export type Route =
  | { kind: "command"; cmd: CommandSpec; args: string[] }
  /** Help for the command or group named by `words` ([] = everything). */
  | { kind: "help"; words: string[] }
  | { kind: "version" };

export function findCommand(words: readonly string[]): CommandSpec | undefined {
  return COMMANDS.find((c) => c.words.length === words.length && c.words.every((w, i) => w === words[i]));
}

/** Commands whose words start with `prefix`. */
export function commandsUnder(prefix: readonly string[]): CommandSpec[] {
  return COMMANDS.filter((c) => c.words.length >= prefix.length && prefix.every((w, i) => c.words[i] === w));
}

/** The next words that can follow `prefix`. */
export function nextWords(prefix: readonly string[]): string[] {
  const out = new Set<string>();
  for (const c of commandsUnder(prefix)) if (c.words.length > prefix.length) out.add(c.words[prefix.length]!);
  return [...out];
}

/** `bsk screenshot --full-page …` is `bsk screenshot full-page …`: a variant flag picks another command. */
export function variantOf(cmd: CommandSpec, args: string[]): Route {
  for (const [flag, words] of Object.entries(cmd.variants ?? {})) {
    const at = args.indexOf(`--${flag}`);
    const variant = at === -1 ? undefined : findCommand(words);
    if (variant) return { kind: "command", cmd: variant, args: args.filter((_, i) => i !== at) };
  }
  return { kind: "command", cmd, args };
}

export function route(argv: readonly string[]): Route {
  if (argv[0] === "help") return { kind: "help", words: argv.slice(1).filter((t) => !isFlagToken(t)) };
  const { words, rest, at: i } = splitWords(argv, (w) => commandsUnder(w).length > 0);
  if (wantsHelp(argv)) return { kind: "help", words };
  const cmd = findCommand(words);
  if (cmd) return variantOf(cmd, rest);
  if (words.length === 0) {
    if (argv.length === 0) return { kind: "help", words: [] };
    if (argv.includes("--version")) return { kind: "version" };
  }
  const next = argv.slice(i).find((t) => !isFlagToken(t) && t !== "--");
  const choices = nextWords(words);
  const here = ["bsk", ...words].join(" ");
  if (next === undefined) {
    throw new BskError("invalid_params", `${here} needs a command: ${choices.join(", ")}`, {
      hint: `For example: ${here} ${choices[0]}. See ${here} --help.`,
    });
  }
  const guess = (words.length === 0 ? COMMAND_SYNONYMS[next.toLowerCase()] : undefined) ?? closest(next, choices);
  throw new BskError("invalid_params", `unknown command: ${here} ${next}`, {
    hint: guess ? `Did you mean: ${here} ${guess}? (${here} --help lists commands)` : `${here} --help lists the commands.`,
    data: { reason: "unknown_command" },
  });
}

/** argv + env → what this invocation does (plan.ts), routed with the whole table. Pure (no I/O). */
export function plan(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  ids: Ids = randomIds(),
  pid = process.pid,
  cwd = process.cwd(),
  io?: ArgsIo,
): Plan {
  const r = route(argv);
  if (r.kind === "help") return r;
  if (r.kind === "version") return { kind: "version", json: wantsJson(argv) };
  return planCommand(r.cmd, r.args, env, ids, pid, cwd, io);
}
