/**
 * argv → which command. Command words come first (global flags may sit among them, e.g.
 * `bsk --json tab list`); the longest run of words naming a command wins, so `navigate back` is
 * navigate.back while `navigate https://…` is navigate with a URL. Nothing is built for commands not chosen.
 */
import { BskError } from "../protocol/errors.ts";
import type { CommandSpec } from "./command-spec.ts";
import { COMMANDS } from "./commands-table.ts";
import { closest, COMMAND_SYNONYMS } from "./suggest.ts";

export type Route =
  | { kind: "command"; cmd: CommandSpec; args: string[] }
  /** Help for the command or group named by `words` ([] = everything). */
  | { kind: "help"; words: string[] }
  | { kind: "version" };

/** Flags every command may take before its words that consume the next token as their value. */
const VALUE_FLAGS = new Set(["--session", "--tab", "--timeout", "--op-id"]);

export function isFlagToken(tok: string): boolean {
  return tok.length > 1 && tok.startsWith("-") && !/^-\d/.test(tok);
}

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

export function wantsHelp(argv: readonly string[]): boolean {
  for (const tok of argv) {
    if (tok === "--") return false;
    if (tok === "--help" || tok === "-h") return true;
  }
  return false;
}

/** `bsk screenshot --full-page …` is `bsk screenshot full-page …`: a variant flag picks another command. */
function variantOf(cmd: CommandSpec, args: string[]): Route {
  for (const [flag, words] of Object.entries(cmd.variants ?? {})) {
    const at = args.indexOf(`--${flag}`);
    const variant = at === -1 ? undefined : findCommand(words);
    if (variant) return { kind: "command", cmd: variant, args: args.filter((_, i) => i !== at) };
  }
  return { kind: "command", cmd, args };
}

export function route(argv: readonly string[]): Route {
  if (argv[0] === "help") return { kind: "help", words: argv.slice(1).filter((t) => !isFlagToken(t)) };
  const words: string[] = [];
  const flags: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const tok = argv[i]!;
    if (tok === "--") break;
    if (isFlagToken(tok)) {
      flags.push(tok);
      if (VALUE_FLAGS.has(tok) && i + 1 < argv.length) flags.push(argv[++i]!);
      continue;
    }
    if (commandsUnder([...words, tok]).length === 0) break;
    words.push(tok);
  }
  const rest = [...flags, ...argv.slice(i)];
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
