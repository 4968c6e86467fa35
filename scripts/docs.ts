/**
 * The README's generated sections: the command reference (from the catalog and the CLI's own commands),
 * the error table and the environment table. `npm run docs` rewrites them; tests/unit/docs.test.ts fails on drift.
 */
import { flagsFor, usageLine } from "../cli/args.ts";
import { COMMANDS } from "../cli/commands-table.ts";
import { ENV_VARS } from "../protocol/env.ts";
import { ERRORS, ERROR_CODES } from "../protocol/errors.ts";

const esc = (s: string) => s.replace(/\|/g, "\\|");

function commandsSection(): string {
  const lines = [
    "## Commands",
    "",
    "Generated from the protocol catalog (`protocol/methods/`) and the CLI's own commands; `bsk <command> --help` shows the same.",
    "Every command also takes `--json`; calls to the daemon take `--timeout`; page-changing calls take `--op-id`.",
    "",
    "| command | what it does | flags |",
    "|---|---|---|",
  ];
  for (const cmd of COMMANDS) {
    const flags = Object.entries(flagsFor(cmd))
      .filter(([, f]) => !f.option)
      .map(([name, f]) => `\`--${name}\`${f.type === "boolean" ? "" : ` ${f.type === "enum" ? (f.options ?? []).join("\\|") : f.type}`}`)
      .join(" ");
    lines.push(`| \`${esc(usageLine(cmd).replace(/ \[flags\]$/, ""))}\` | ${esc(cmd.description)} | ${flags} |`);
  }
  return lines.join("\n");
}

function errorsSection(): string {
  const lines = ["## Errors and exit codes", "", "| code | exit | default hint |", "|---|---|---|"];
  for (const code of ERROR_CODES) lines.push(`| \`${code}\` | ${ERRORS[code].exit} | ${esc(ERRORS[code].hint)} |`);
  lines.push("", "Finer causes are in `error.data.reason` (e.g. `agent_window_scope`, `restricted_url`, `session_ended`, `daemon_not_running`).");
  return lines.join("\n");
}

function envSection(): string {
  const lines = ["| variable | default | read by | meaning |", "|---|---|---|---|"];
  for (const v of ENV_VARS) lines.push(`| \`${v.name}\` | ${v.default} | ${v.read_by} | ${esc(v.description)} |`);
  return lines.join("\n");
}

export const SECTIONS: Record<string, () => string> = {
  commands: commandsSection,
  errors: errorsSection,
  env: envSection,
};

export function renderReadme(readme: string): string {
  let out = readme;
  for (const [name, render] of Object.entries(SECTIONS)) {
    const start = `<!-- generated:${name}:start -->`;
    const end = `<!-- generated:${name}:end -->`;
    const a = out.indexOf(start);
    const b = out.indexOf(end);
    if (a < 0 || b < a) throw new Error(`README.md lacks the ${start} … ${end} markers`);
    out = `${out.slice(0, a + start.length)}\n${render()}\n${out.slice(b)}`;
  }
  return out;
}

if (import.meta.main) {
  const path = `${import.meta.dir}/../README.md`;
  await Bun.write(path, renderReadme(await Bun.file(path).text()));
  console.log("README.md generated sections updated");
}
