/**
 * argv's command words, split from the rest, the same for the call path (command-index.ts) and the whole table
 * (router.ts), each saying which words start a command. No macro here: run from source, a module with one costs a
 * catalog build on every start.
 */
export function isFlagToken(tok: string): boolean {
  return tok.length > 1 && tok.startsWith("-") && !(tok.charCodeAt(1) >= 48 && tok.charCodeAt(1) <= 57);
}

export function wantsHelp(argv: readonly string[]): boolean {
  for (const tok of argv) {
    if (tok === "--") return false;
    if (tok === "--help" || tok === "-h") return true;
  }
  return false;
}

/** Flags every command may take before its words that consume the next token as their value. */
const VALUE_FLAGS = new Set(["--session", "--tab", "--timeout", "--op-id"]);

/**
 * argv split into the command's words and the rest: command words come first (global flags may sit among them, e.g.
 * `bsk --json tab list`); the longest run of words that starts a command wins, so `navigate back` is navigate.back
 * while `navigate https://…` is navigate with a URL. `at` is where the words stopped.
 */
export function splitWords(
  argv: readonly string[],
  startsCommand: (words: readonly string[]) => boolean,
): { words: string[]; rest: string[]; at: number } {
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
    if (!startsCommand([...words, tok])) break;
    words.push(tok);
  }
  return { words, rest: [...flags, ...argv.slice(i)], at: i };
}
