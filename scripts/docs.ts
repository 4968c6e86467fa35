/**
 * The docs' generated sections: the command reference (from the catalog and the CLI's own commands) and the
 * environment table in docs/reference.md, the error table in docs/errors.md, SKILL.md's command list.
 * `npm run gen` rewrites them; tests/unit/docs.test.ts fails on drift.
 */
import { flagsFor, usageLine } from "../cli/args.ts";
import { COMMANDS } from "../cli/commands-table.ts";
import { ENV_VARS } from "../protocol/env.ts";
import { ERRORS, ERROR_CODES, OUTCOME_EXITS } from "../protocol/errors.ts";
import { readFileSync } from "node:fs";

const esc = (s: string) => s.replace(/\|/g, "\\|");

function commandsSection(): string {
  const lines = [
    "Generated from the protocol catalog (`protocol/methods/`) and the CLI's own commands; `bsk <command> --help` shows the same.",
    "Every command also takes `--json`; calls to the daemon take `--timeout`; page-changing calls take `--op-id`.",
    "Every command accepts `--session`: where the table lists it, it names the session (or filters, for `session list`, `ops`);",
    "elsewhere (`status`, `doctor`, `session start`, …) it is accepted and ignored.",
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
  const lines = ["| code | exit | default hint |", "|---|---|---|"];
  for (const code of ERROR_CODES) lines.push(`| \`${code}\` | ${ERRORS[code].exit} | ${esc(ERRORS[code].hint)} |`);
  lines.push("", "Some calls succeed with an outcome that is not what the agent asked for; they print their result (the outcome is in");
  lines.push("the JSON) and exit non-zero:", "", "| command | outcome | exit | meaning |", "|---|---|---|---|");
  for (const [method, outcomes] of Object.entries(OUTCOME_EXITS)) {
    const command = COMMANDS.find((c) => c.method === method);
    const name = command ? `bsk ${command.words.join(" ")}` : method;
    for (const [outcome, o] of Object.entries(outcomes)) lines.push(`| \`${name}\` | \`${outcome}\` | ${o.exit} | ${esc(o.meaning)} |`);
  }
  lines.push(
    "",
    "Finer causes are in `error.data.reason` (e.g. `agent_window_scope`, `restricted_url`, `session_ended`, `daemon_not_running`).",
  );
  return lines.join("\n");
}

function envSection(): string {
  const lines = ["| variable | default | read by | meaning |", "|---|---|---|---|"];
  for (const v of ENV_VARS) lines.push(`| \`${v.name}\` | ${v.default} | ${v.read_by} | ${esc(v.description)} |`);
  return lines.join("\n");
}

/** SKILL.md's compact list: usage lines only (SKILL.md must stay ≤ 12 KB); references/commands.md has the rest. */
function skillCommandsSection(): string {
  const lines = ["```"];
  for (const cmd of COMMANDS) {
    if (cmd.local) continue;
    lines.push(usageLine(cmd).replace(/ \[flags\]$/, ""));
  }
  lines.push("```");
  return lines.join("\n");
}

/** skill/references/commands.md: every command with its flags, from the catalog. */
export function renderSkillCommandReference(): string {
  const out = [
    "# bsk command reference",
    "",
    "Generated from the protocol catalog; `bsk <command> --help` shows the same. Every command takes `--json`;",
    "calls to the daemon take `--timeout <duration>` (default 30s); page-changing calls take `--op-id <id>`.",
    "Every command accepts `--session <id>`; where it is not listed below it is accepted and ignored.",
    "",
  ];
  for (const cmd of COMMANDS) {
    out.push(`## ${usageLine(cmd).replace(/ \[flags\]$/, "")}`, "", cmd.description, "");
    for (const p of cmd.positionals) out.push(`- \`<${p.param}>\`${p.required ? "" : " (optional)"}: ${p.description}`);
    for (const [name, f] of Object.entries(flagsFor(cmd))) {
      if (f.option) continue;
      const value = f.type === "boolean" ? "" : ` <${f.type === "enum" ? (f.options ?? []).join("|") : f.type}>`;
      const extra = [f.default !== undefined ? `default ${f.default}` : "", f.env ? `env ${f.env}` : ""].filter(Boolean).join(", ");
      out.push(`- \`--${name}${value}\`: ${f.description}${extra ? ` (${extra})` : ""}`);
    }
    if (cmd.examples.length) out.push("", "```sh", ...cmd.examples, "```");
    out.push("");
  }
  return out.join("\n");
}

export const SECTIONS: Record<string, () => string> = {
  commands: commandsSection,
  errors: errorsSection,
  env: envSection,
  "skill-commands": skillCommandsSection,
};

/** Generated files besides the docs' sections: path (from the repo root) → text. */
export function generatedFiles(root: string): Record<string, string> {
  return {
    "skill/references/commands.md": renderSkillCommandReference(),
    "skill/references/snapshot.md": readFileSync(`${root}/extension/src/page/snapshot/README.md`, "utf8"),
  };
}

export function renderReadme(readme: string): string {
  let out = readme;
  for (const [name, render] of Object.entries(SECTIONS)) {
    const start = `<!-- generated:${name}:start -->`;
    const end = `<!-- generated:${name}:end -->`;
    const a = out.indexOf(start);
    const b = out.indexOf(end);
    if (a < 0 || b < a) continue;
    out = `${out.slice(0, a + start.length)}\n${render()}\n${out.slice(b)}`;
  }
  return out;
}

/** Markdown files whose generated sections are filled in place. */
export const DOCS_WITH_SECTIONS = ["docs/reference.md", "docs/errors.md", "skill/SKILL.md"];

if (import.meta.main) {
  const root = `${import.meta.dir}/..`;
  for (const rel of DOCS_WITH_SECTIONS) {
    const path = `${root}/${rel}`;
    await Bun.write(path, renderReadme(await Bun.file(path).text()));
  }
  for (const [rel, text] of Object.entries(generatedFiles(root))) await Bun.write(`${root}/${rel}`, text);
  console.log(`generated docs updated: ${DOCS_WITH_SECTIONS.join(", ")}, skill/references/`);
}
