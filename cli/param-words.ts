/**
 * The daemon checks params against the catalog and names what is wrong by its params path (`params.value: Invalid
 * input: expected string, received undefined`). On the command line that is an argument or a flag: this says which,
 * in words, with the usage line. Loaded only when a call failed `invalid_params`.
 */
import { BskError } from "../protocol/errors.ts";
import { usageLine } from "./args.ts";
import type { CommandSpec } from "./command-spec.ts";

const KINDS: Record<string, string> = {
  string: "text",
  number: "a number",
  array: "a list",
  boolean: "true or false",
  object: "an object",
};

/** What the issue means, said of a value (`is missing`, `must be a number`), or undefined to keep the daemon's words. */
function said(issue: string): string | undefined {
  if (/received undefined$/.test(issue)) return "is missing";
  if (/^Too small: expected string to have >=1 characters?$/.test(issue)) return "is empty";
  const kind = /^Invalid input: expected (\w+), received \w+$/.exec(issue)?.[1];
  return kind ? `must be ${KINDS[kind] ?? kind}` : undefined;
}

/** The argument or flag that fills params key `key`, as the command's help names it. */
function nameOf(cmd: CommandSpec, key: string): { name: string; description: string; positional: boolean } | undefined {
  const pos = cmd.positionals.find((p) => p.param === key);
  if (pos) return { name: `<${pos.param}>`, description: pos.description, positional: true };
  const flag = Object.entries(cmd.flags).find(([, f]) => f.param === key);
  return flag ? { name: `--${flag[0]}`, description: flag[1].description, positional: false } : undefined;
}

export function inCliWords(cmd: CommandSpec, error: BskError): BskError {
  const path = error.data?.path;
  if (error.code !== "invalid_params" || typeof path !== "string") return error;
  const key = path.split(".")[0]!;
  const named = nameOf(cmd, key);
  if (!named) return error;
  const issues = error.data?.issues;
  const first = Array.isArray(issues) ? (issues[0] as { message?: unknown } | undefined)?.message : undefined;
  const words = typeof first === "string" ? said(first) : undefined;
  // A range or another rule the daemon already put in words: keep them, under the CLI's name.
  const rest = error.message.replace(/^[\w.]+: params\.[\w.]+: /, "");
  const subject = `${named.name}${path.includes(".") ? ` (${path.slice(key.length + 1)})` : ""}`;
  const message =
    words === "is missing"
      ? `missing ${named.name}: ${named.description}`
      : words
        ? `${subject} ${words}`
        : /^must /.test(rest)
          ? `${subject} ${rest}`
          : `${subject}: ${rest}`;
  const usage = `Usage: ${usageLine(cmd)} (bsk ${cmd.words.join(" ")} --help)`;
  // A range's hint says which values fit: kept, naming the flag or argument.
  const hint = error.data?.range && error.hint ? error.hint.replace(`Give ${path} `, `Give ${named.name} `) : usage;
  return new BskError(error.code, message, { hint, data: error.data });
}
