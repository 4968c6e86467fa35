/**
 * A command's argv (after its words) → params, from the catalog's CLI shape. Types are checked as far as
 * argv can say (numbers, durations, enums, required arguments); the params schema itself is the daemon's
 * to enforce (it answers invalid_params with a hint), so the CLI never builds a zod schema.
 */
import type { FlagSpec } from "../protocol/define.ts";
import { parseDuration } from "../protocol/duration.ts";
import { BskError } from "../protocol/errors.ts";
import { type CommandSpec, commandName } from "./command-spec.ts";
import { isFlagToken } from "./argv-words.ts";
import { closest } from "./suggest.ts";

export const DEFAULT_TIMEOUT_MS = 30_000;

/** A flag as the parser sees it: a catalog flag (fills a param) or one of the CLI's own (fills an option). */
export interface FlagDef extends FlagSpec {
  option?: "json" | "timeout" | "op_id" | "help" | "session";
}

export interface ParsedArgs {
  params: Record<string, unknown>;
  json: boolean;
  timeoutMs: number;
  /** --timeout was given (else timeoutMs is the default). */
  timeoutGiven: boolean;
  /** --op-id, when given. */
  opId?: string;
}

type Env = Record<string, string | undefined>;

/** How the parser reads `file` flags (`-` = stdin); tests pass their own. */
export interface ArgsIo {
  readText(path: string): string;
}

/** node:fs only when a file flag is used: the CLI's hot path imports no node:* module. */
export const defaultIo: ArgsIo = {
  readText(path) {
    const { readFileSync } = require("node:fs") as typeof import("node:fs");
    const bytes = readFileSync(path === "-" ? 0 : path);
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  },
};

const REDACTED = "[redacted]";

/** Every flag a command takes, catalog flags first, then the ones every command (or scope) adds. */
export function flagsFor(cmd: CommandSpec): Record<string, FlagDef> {
  const flags: Record<string, FlagDef> = { ...cmd.flags };
  const add = (name: string, def: FlagDef) => {
    if (!(name in flags)) flags[name] = def;
  };
  const help: FlagDef = { param: "", option: "help", type: "boolean", alias: "h", description: "Show this help" };
  if (cmd.ownFlagsOnly) {
    add("help", help);
    return flags;
  }
  if (cmd.scope !== "none") {
    add("session", { param: "session_id", type: "string", env: "BSK_SESSION", description: "Session id from bsk session start" });
  }
  // Agents pass --session to every command by habit: a command that is not about one session accepts and ignores it.
  add("session", {
    param: "",
    option: "session",
    type: "string",
    description: "Accepted and ignored: this command is not about one session",
  });
  if (cmd.scope === "tab") add("tab", { param: "tab_id", type: "number", description: "Tab id (default: the session's current tab)" });
  if (cmd.method) {
    add("timeout", {
      param: "",
      option: "timeout",
      type: "duration",
      default: cmd.defaultTimeoutMs ? `${cmd.defaultTimeoutMs / 1000}s` : "30s",
      description: "Give up after this long, time queued included (500ms, 30s, 5m)",
    });
  }
  if (cmd.effect === "BrowserMutation") {
    add("op-id", {
      param: "",
      option: "op_id",
      type: "string",
      description: "Idempotency key: a retry with the same op id never runs twice (default: a fresh one)",
    });
  }
  add("json", { param: "", option: "json", type: "boolean", description: "Print one JSON object on stdout" });
  add("help", help);
  return flags;
}

function invalid(cmd: CommandSpec, message: string, hint?: string): BskError {
  return new BskError("invalid_params", message, { hint: hint ?? `See ${commandName(cmd)} --help.` });
}

/** `raw` as it may appear in an error message: never the value of a secret param. */
function shown(cmd: CommandSpec, param: string | undefined, raw: string): string {
  return param && cmd.redact?.includes(param) ? REDACTED : JSON.stringify(raw);
}

function readFileFlag(cmd: CommandSpec, label: string, path: string, io: ArgsIo): string {
  let text: string;
  try {
    text = io.readText(path);
  } catch (e) {
    const why =
      e instanceof TypeError
        ? "it is not UTF-8 text"
        : (e as NodeJS.ErrnoException).code === "ENOENT"
          ? "no such file"
          : (e as Error).message;
    throw invalid(
      cmd,
      `${label} cannot read ${path === "-" ? "stdin" : JSON.stringify(path)}: ${why}`,
      `Pass a readable UTF-8 file, or - to read stdin (e.g. printf %s "$SECRET" | ${commandName(cmd)} ... ${label} -).`,
    );
  }
  // One trailing newline is the file's (or echo's), not the value's.
  return text.replace(/\r?\n$/, "");
}

function convert(cmd: CommandSpec, label: string, def: Pick<FlagSpec, "type" | "options" | "param">, raw: string): unknown {
  const value = shown(cmd, def.param, raw);
  switch (def.type) {
    case "number": {
      const n = raw.trim() === "" ? NaN : Number(raw);
      if (!Number.isFinite(n)) throw invalid(cmd, `${label} expects a number, got ${value}`);
      return n;
    }
    case "duration": {
      // A bare number is ambiguous on a command line (`--timeout 5` was 5 ms): a unit is required.
      if (/^\s*\d+(?:\.\d+)?\s*$/.test(raw)) {
        const n = raw.trim();
        throw invalid(
          cmd,
          `${label} needs a unit, got ${value}`,
          `Write ${label} ${n}s for seconds or ${label} ${n}ms for milliseconds (also m, h).`,
        );
      }
      const ms = parseDuration(raw);
      if (ms === null) throw invalid(cmd, `${label} expects a duration like 500ms, 30s or 5m, got ${value}`);
      return ms;
    }
    case "enum":
      return oneOf(cmd, label, def.options ?? [], raw, value);
    case "json":
      try {
        return JSON.parse(raw);
      } catch (e) {
        throw invalid(
          cmd,
          `${label} expects JSON, got ${value}: ${(e as Error).message}`,
          `Quote it for the shell: ${label} '{"key":"value"}'.`,
        );
      }
    case "list":
      // A list with fixed options also takes them comma-separated (--modifiers Control,Shift); free text never
      // splits, since an option label may hold a comma.
      if (!def.options) return [raw];
      return raw
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x !== "")
        .map((x) => oneOf(cmd, label, def.options!, x, shown(cmd, def.param, x)));
    case "boolean": {
      if (/^(true|1|yes)$/i.test(raw)) return true;
      if (/^(false|0|no)$/i.test(raw)) return false;
      throw invalid(cmd, `${label} takes no value (or true/false), got ${value}`);
    }
    default:
      return raw;
  }
}

function oneOf(cmd: CommandSpec, label: string, options: readonly string[], raw: string, shownRaw: string): string {
  if (options.includes(raw)) return raw;
  const guess = closest(raw, options);
  throw invalid(cmd, `${label} must be one of ${options.join(", ")}; got ${shownRaw}`, guess ? `Did you mean ${guess}?` : undefined);
}

export function parseArgs(cmd: CommandSpec, args: readonly string[], env: Env, io: ArgsIo = defaultIo): ParsedArgs {
  const flags = flagsFor(cmd);
  const aliases = new Map<string, string>();
  for (const [name, f] of Object.entries(flags)) if (f.alias) aliases.set(f.alias, name);

  const params: Record<string, unknown> = {};
  const fromFlag = new Set<string>();
  /** Param → the flag that set it. */
  const setBy = new Map<string, string>();
  const options: { json: boolean; timeout?: number; op_id?: string } = { json: false };
  const positionals: string[] = [];

  const setFlag = (name: string, def: FlagDef, raw: string | undefined) => {
    const label = `--${name}`;
    if (name === "session" && raw !== undefined && raw.trim() === "") throw emptySession(cmd);
    let value: unknown;
    if (def.type === "boolean") {
      const on = raw === undefined ? true : (convert(cmd, label, def, raw) as boolean);
      if (def.value !== undefined) {
        if (!on) return;
        value = def.value;
      } else value = on;
    } else if (def.type === "file") {
      value = readFileFlag(cmd, label, raw!, io);
    } else {
      value = convert(cmd, label, def, raw!);
    }
    if (def.option) {
      if (def.option === "json") options.json = value as boolean;
      else if (def.option === "timeout") options.timeout = value as number;
      else if (def.option === "op_id") options.op_id = value as string;
      return; // "session": accepted, checked above, not sent
    }
    if (def.type === "list") value = [...((params[def.param] as unknown[] | undefined) ?? []), ...(value as unknown[])];
    else if ((setBy.get(def.param) ?? name) !== name) {
      // e.g. --value and --value-file both fill `value`
      throw invalid(cmd, `${label} and --${setBy.get(def.param)} both set <${def.param}>; give one`);
    }
    setBy.set(def.param, name);
    params[def.param] = value;
    fromFlag.add(def.param);
  };

  let literal = false;
  for (let i = 0; i < args.length; i++) {
    const tok = args[i]!;
    if (literal || !isFlagToken(tok)) {
      positionals.push(tok);
      continue;
    }
    if (tok === "--") {
      literal = true;
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (tok.startsWith("--")) {
      const eq = tok.indexOf("=");
      name = eq === -1 ? tok.slice(2) : tok.slice(2, eq);
      inline = eq === -1 ? undefined : tok.slice(eq + 1);
    } else {
      const short = tok.slice(1, 2);
      const long = aliases.get(short);
      if (!long) throw unknownFlag(cmd, tok, flags);
      name = long;
      inline = tok.length > 2 ? tok.slice(2).replace(/^=/, "") : undefined;
    }
    const def = flags[name];
    if (!def) throw unknownFlag(cmd, `--${name}`, flags);
    if (def.type !== "boolean" && inline === undefined) {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith("--") && next.length > 2)) {
        throw invalid(cmd, `--${name} needs a value`);
      }
      inline = next;
      i++;
    }
    setFlag(name, def, inline);
  }

  // Positionals, in order; a `rest` positional takes every remaining word.
  const specs = cmd.positionals;
  const listParams = new Set(
    Object.values(flags)
      .filter((f) => f.type === "list")
      .map((f) => f.param),
  );
  let p = 0;
  for (const spec of specs) {
    if (p >= positionals.length) break;
    const raw = spec.rest ? positionals.slice(p).join(" ") : positionals[p]!;
    p = spec.rest ? positionals.length : p + 1;
    const value = convert(cmd, `<${spec.param}>`, { type: spec.type ?? "string", param: spec.param }, raw);
    if (listParams.has(spec.param)) {
      // `select @e9 Germany --value France`: the positional is the list's first item.
      params[spec.param] = [value, ...((params[spec.param] as unknown[] | undefined) ?? [])];
      continue;
    }
    if (fromFlag.has(spec.param) && params[spec.param] !== value) {
      throw invalid(cmd, `<${spec.param}> was given twice with different values`);
    }
    params[spec.param] = value;
  }
  if (p < positionals.length) {
    const extra = cmd.redact?.length ? `word ${p + 1}` : JSON.stringify(positionals[p]);
    throw invalid(
      cmd,
      `unexpected argument ${extra} for ${commandName(cmd)}`,
      cmd.redact?.length ? "Quote a value that has spaces." : undefined,
    );
  }

  // Environment fallbacks for what argv left out.
  for (const [name, def] of Object.entries(flags)) {
    if (!def.env || def.option || def.param in params) continue;
    const raw = env[def.env];
    if (raw === undefined || raw === "") continue;
    params[def.param] = convert(cmd, `${def.env} (for --${name})`, def, raw);
  }

  for (const spec of specs) {
    if (spec.required && !(spec.param in params)) {
      throw invalid(cmd, `missing <${spec.param}>: ${spec.description}`, `Usage: ${usageLine(cmd)}`);
    }
  }
  if (cmd.scope !== "none" && params.session_id === undefined) {
    throw new BskError("invalid_params", `${commandName(cmd)} needs a session: pass --session ID (or set BSK_SESSION)`, {
      hint: "Start one with bsk session start (it prints the id, e.g. k7qm), then pass it written out to every command: --session k7qm.",
    });
  }
  return {
    params,
    json: options.json,
    timeoutMs: options.timeout ?? cmd.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    timeoutGiven: options.timeout !== undefined,
    opId: options.op_id,
  };
}

function emptySession(cmd: CommandSpec): BskError {
  return invalid(
    cmd,
    `--session is empty: ${commandName(cmd)} got --session "" (a variable such as $S set in an earlier command does not reach this one's shell)`,
    "Pass the id bsk session start printed, written out: --session k7qm. bsk session list shows the live ones.",
  );
}

function unknownFlag(cmd: CommandSpec, flag: string, flags: Record<string, FlagDef>): BskError {
  const bare = flag.replace(/^-+/, "");
  // A flag that names another command (`screenshot --fullpage` → `screenshot full-page`).
  const variant = closest(bare, Object.keys(cmd.variants ?? {}));
  const guess = closest(bare, Object.keys(flags));
  const hint = variant
    ? `Did you mean: bsk ${cmd.variants![variant]!.join(" ")}? (or --${variant})`
    : guess
      ? `Did you mean --${guess}? (${commandName(cmd)} --help lists its flags)`
      : undefined;
  return invalid(cmd, `unknown flag ${flag} for ${commandName(cmd)}`, hint);
}

/** `bsk tab select <tab_id> [flags]` */
export function usageLine(cmd: CommandSpec): string {
  const pos = cmd.positionals.map((p) => {
    const name = p.rest ? `${p.param}...` : p.param;
    return p.required ? `<${name}>` : `[${name}]`;
  });
  return [commandName(cmd), ...pos, "[flags]"].join(" ");
}
