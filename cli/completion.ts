/**
 * Shell completion from the catalog. The shell scripts are thin: they call `bsk __complete <words…>` (a few ms:
 * the catalog is inlined in the binary), which prints one candidate per line for the last word.
 */
import { BskError } from "../protocol/errors.ts";
import type { HomePaths } from "../shared/home.ts";
import { flagsFor } from "./args.ts";
import type { Outcome } from "./output.ts";
import { isFlagToken } from "./argv-words.ts";
import { findCommand, nextWords } from "./router.ts";

/** Candidates for the last of `words` (the word being typed; may be ""). */
export function complete(words: readonly string[]): string[] {
  const typed = [...words];
  const current = typed.pop() ?? "";
  const path: string[] = [];
  let i = 0;
  for (; i < typed.length; i++) {
    const w = typed[i]!;
    if (isFlagToken(w)) continue;
    if (!nextWords(path).includes(w)) break;
    path.push(w);
  }
  const cmd = findCommand(path);
  const prev = typed.at(-1);
  if (cmd && prev?.startsWith("--")) {
    const flag = flagsFor(cmd)[prev.slice(2)];
    if (flag && flag.type !== "boolean") return flag.type === "enum" ? [...(flag.options ?? [])].filter((o) => o.startsWith(current)) : [];
  }
  const candidates = current.startsWith("-")
    ? cmd
      ? Object.keys(flagsFor(cmd)).map((f) => `--${f}`)
      : ["--help", "--version", "--json"]
    : i === typed.length
      ? nextWords(path)
      : [];
  return candidates.filter((c) => c.startsWith(current)).sort();
}

/** How long completion waits for a running daemon's session list before it offers nothing. */
const LIVE_WAIT_MS = 300;

/**
 * `complete`, plus the live session ids after `--session`, asked of a daemon that already runs (never one started
 * for this: no daemon, a slow one or any failure offers nothing).
 */
export async function completeLive(words: readonly string[], paths: HomePaths): Promise<string[]> {
  if (words.at(-2) !== "--session") return complete(words);
  const current = words.at(-1) ?? "";
  try {
    const { call, nextRequestId, tryConnect } = await import("./daemon-client.ts");
    const conn = await tryConnect(paths);
    if (!conn) return [];
    try {
      const reply = await call(conn, { id: nextRequestId(), method: "session.list", params: {}, meta: {} }, { giveUpMs: LIVE_WAIT_MS });
      if (!reply.ok) return [];
      const sessions = (reply.result as { sessions?: { session_id: string; state: string }[] }).sessions ?? [];
      return sessions
        .filter((s) => s.state !== "ended" && s.session_id.startsWith(current))
        .map((s) => s.session_id)
        .sort();
    } finally {
      conn.close();
    }
  } catch {
    return [];
  }
}

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

export function completionScript(shell: Shell): string {
  switch (shell) {
    case "bash":
      return `# bsk completion for bash: source this file, or: eval "$(bsk completion bash)"
_bsk_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(bsk __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
  if [ \${#COMPREPLY[@]} -eq 0 ]; then compopt -o default 2>/dev/null; fi
}
complete -F _bsk_complete bsk
`;
    case "zsh":
      return `#compdef bsk
# bsk completion for zsh: put this file on $fpath as _bsk, or: eval "$(bsk completion zsh)"
_bsk() {
  local -a candidates
  candidates=("\${(@f)$(bsk __complete "\${words[@]:1:$((CURRENT-1))}" 2>/dev/null)}")
  if [[ -n "\${candidates[1]}" ]]; then compadd -a candidates; else _files; fi
}
if [[ "$funcstack[1]" = "_bsk" ]]; then _bsk "$@"; else compdef _bsk bsk; fi
`;
    case "fish":
      return `# bsk completion for fish: save as ~/.config/fish/completions/bsk.fish, or: bsk completion fish | source
function __bsk_complete
  set -l words (commandline -opc) (commandline -ct)
  bsk __complete $words[2..-1] 2>/dev/null
end
complete -c bsk -f -a '(__bsk_complete)'
`;
  }
}

/** `bsk completion <shell>`: the script, as text output. */
export async function completionCommand(shell: string): Promise<Outcome> {
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new BskError("invalid_params", `no completion for ${JSON.stringify(shell)}`, { hint: `Choose one of: ${SHELLS.join(", ")}.` });
  }
  return { ok: true, format: "text", result: { text: completionScript(shell as Shell) } };
}
