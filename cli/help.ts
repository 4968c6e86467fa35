/** `--help` at every level, generated from the command table (so from the catalog). Loaded only for help. */
import { BskError } from "../protocol/errors.ts";
import { APP_VERSION, PROTOCOL_VERSION } from "../protocol/version.ts";
import { flagsFor, usageLine, type FlagDef } from "./args.ts";
import { type CommandSpec, commandName } from "./command-spec.ts";
import { HELP_GROUPS } from "./help-groups.ts";
import { commandsUnder, findCommand, nextWords } from "./router.ts";
import { closest } from "./suggest.ts";

function columns(rows: [string, string][], indent = "  ", width = Math.min(34, Math.max(...rows.map(([a]) => a.length)))): string[] {
  return rows.map(([a, b]) =>
    a.length > width ? `${indent}${a}\n${indent}${" ".repeat(width)}  ${b}` : `${indent}${a.padEnd(width)}  ${b}`,
  );
}

/** The text up to the first `.` or `;` that ends a sentence outside parentheses (not `e.g.`, `i.e.`). */
export function firstSentence(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === "." || c === ";") && (i + 1 === text.length || /\s/.test(text[i + 1]!))) {
      if (c === "." && /\b(e\.g|i\.e)$/.test(text.slice(0, i))) continue;
      return text.slice(0, i);
    }
  }
  return text.replace(/[.;]$/, "");
}

function flagLabel(name: string, f: FlagDef): string {
  const value =
    f.type === "boolean"
      ? ""
      : f.type === "enum"
        ? ` <${(f.options ?? []).join("|")}>`
        : f.type === "duration"
          ? " <duration>"
          : f.type === "number"
            ? " <n>"
            : f.type === "list"
              ? " <value> (repeatable)"
              : f.type === "json"
                ? " <json>"
                : ` <${name === "session" ? "id" : "value"}>`;
  return `${f.alias ? `-${f.alias}, ` : ""}--${name}${value}`;
}

function flagText(f: FlagDef): string {
  const extra = [f.default !== undefined && `default: ${f.default}`, f.env && `env ${f.env}`].filter(Boolean);
  return `${f.description}${extra.length ? ` (${extra.join("; ")})` : ""}`;
}

export function commandHelp(cmd: CommandSpec): string {
  const out = [`${commandName(cmd)} — ${cmd.description}`, "", `Usage: ${usageLine(cmd)}`];
  if (cmd.positionals.length) {
    out.push("", "Arguments:");
    out.push(
      ...columns(
        cmd.positionals.map((p) => [
          p.rest ? `${p.param}...` : p.param,
          `${p.description}${p.required ? "" : " (optional)"}${p.type === "number" ? " (number)" : ""}`,
        ]),
      ),
    );
  }
  out.push("", "Flags:");
  out.push(...columns(Object.entries(flagsFor(cmd)).map(([name, f]) => [flagLabel(name, f), flagText(f)])));
  const related = commandsUnder(cmd.words).filter((c) => c !== cmd);
  if (related.length) {
    out.push("", "Subcommands:");
    out.push(...columns(related.map((c) => [commandName(c), firstSentence(c.description)])));
  }
  if (cmd.effect) {
    const note =
      cmd.effect === "BrowserMutation"
        ? "changes the page or browser; recorded in the ledger, retry-safe with the same --op-id"
        : cmd.effect === "PassiveRead"
          ? "reads only"
          : cmd.effect === "TransientInput"
            ? "transient input (hover, probes)"
            : "control plane";
    out.push("", `Effect: ${cmd.effect} (${note}).`);
  }
  if (cmd.examples.length) out.push("", "Examples:", ...cmd.examples.map((e) => `  ${e}`));
  return out.join("\n");
}

function groupHelp(words: string[]): string {
  const here = ["bsk", ...words].join(" ");
  const cmds = commandsUnder(words);
  return [
    `${here} — commands:`,
    "",
    ...columns(cmds.map((c) => [commandName(c), firstSentence(c.description)])),
    "",
    `Run ${here} <command> --help for its arguments and flags.`,
  ].join("\n");
}

/** One column width for every group of the root help, so the summaries line up. */
const GROUPED_WIDTH = Math.max(...HELP_GROUPS.flatMap((g) => g.commands.map((c) => c.length)));

export function rootHelp(): string {
  return [
    `bsk ${APP_VERSION} — let an AI agent use your own logged-in browser, in its own Agent Window.`,
    "",
    "Usage: bsk <command> [arguments] [flags]",
    "",
    ...HELP_GROUPS.flatMap((g) => [
      `${g.title}:`,
      ...columns(
        g.commands.flatMap((name) => {
          const c = findCommand(name.split(" "));
          return c ? [[name, firstSentence(c.description)] as [string, string]] : [];
        }),
        "  ",
        GROUPED_WIDTH,
      ),
      "",
    ]),
    "Every command takes --json (one JSON object on stdout) and --help. Commands that talk to the browser",
    "take --timeout <duration> (default 30s); session commands take --session ID (or BSK_SESSION), tab",
    "commands also --tab ID.",
    "",
    "Environment:",
    ...columns([
      ["BSK_SESSION", "Session id for commands that need one"],
      ["BSK_HOME", "State directory (default ~/.bsk)"],
      ["BSK_AUTO_START=0", "Never start the daemon on demand (use bsk daemon start)"],
      ["BSK_PORT", "Extension gateway port of an auto-started daemon (default 52800)"],
    ]),
    "",
    `Start: bsk session start (prints the id, e.g. k7qm); then bsk navigate https://example.com --session k7qm. Protocol ${PROTOCOL_VERSION}.`,
  ].join("\n");
}

/** Help for `bsk <words> --help`; unknown words are an invalid_params error with a suggestion. */
export function helpFor(words: string[]): string {
  if (words.length === 0) return rootHelp();
  const cmd = findCommand(words);
  if (cmd) return commandHelp(cmd);
  if (commandsUnder(words).length) return groupHelp(words);
  // Longest known prefix, then suggest among what may follow it.
  let known = 0;
  while (known < words.length && commandsUnder(words.slice(0, known + 1)).length) known++;
  const prefix = words.slice(0, known);
  const here = ["bsk", ...prefix].join(" ");
  const guess = closest(words[known]!, nextWords(prefix));
  throw new BskError("invalid_params", `unknown command: ${here} ${words[known]}`, {
    hint: guess ? `Did you mean: ${here} ${guess}?` : `${here} --help lists the commands.`,
    data: { reason: "unknown_command" },
  });
}
