/**
 * The one module that formats. Commands return an Outcome (data or a BskError); this turns it into text:
 * human mode (short, grep-friendly, errors as `error:`/`hint:` on stderr) or `--json` (exactly one object on
 * stdout). Writes go through console.log/console.error only (process.stdout costs ~7 ms to load).
 * The see-and-act, history and trace formatters (format-page.ts, format-history.ts, format-trace.ts) load only for
 * an outcome that needs one (`loadFormatters`, `present`): a round trip such as `bsk status` does not load them.
 */
import { type BskError, exitCodeFor, hintFor, outcomeExitCode } from "../protocol/errors.ts";
import type { MethodFormatters } from "./format-page.ts";
import { readableLogLine } from "./log-line.ts";
import { visible } from "./visible-text.ts";
import { versionLine } from "./commands/version.ts";

export type Timings = Record<string, number>;

export type Outcome =
  /** `format` names the human formatter (the method, or a CLI-only command); unknown ones print an outline (toOutline). */
  | {
      ok: true;
      result: unknown;
      format?: string;
      /** The call's params, for formatters that name what was asked (e.g. the key pressed). */
      params?: Record<string, unknown>;
      /** Params never echoed (the catalog's `redact`). */
      redact?: readonly string[];
      traceId?: string;
      timings?: Timings;
      opId?: string;
      /** A mutation's effect_state (committed | none | unknown) and whether it was a ledger replay. */
      effectState?: string;
      replayed?: boolean;
      /** `events --follow` printed its events as they came; nothing is left to print on success. */
      streamed?: boolean;
      /** A command that reports its own failures (doctor) exits non-zero with a result. */
      exitCode?: number;
      /** The whole --json object, for a command whose documented shape is not the {ok, result} envelope (doctor). */
      jsonBody?: Record<string, unknown>;
    }
  | {
      ok: false;
      error: BskError;
      redact?: readonly string[];
      traceId?: string;
      timings?: Timings;
      opId?: string;
      effectState?: string;
      replayed?: boolean;
    };

export interface Rendered {
  stdout?: string;
  stderr?: string;
  exitCode: number;
}

// ---------------------------------------------------------------- redaction

const SECRET_KEY = /(^|[_-])(password|passwd|secret|token|value_file)$/i;
export const REDACTED = "[redacted]";

/**
 * A copy of `value` with the values of secret-looking keys masked (password, secret, token, value_file,
 * and any key in `extraKeys`, e.g. a fill command's `value`). For logs and any human echo of params.
 */
export function redact<T>(value: T, extraKeys: readonly string[] = []): T {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = x !== undefined && x !== null && (SECRET_KEY.test(k) || extraKeys.includes(k)) ? REDACTED : walk(x);
    }
    return out;
  };
  return walk(value) as T;
}

// ---------------------------------------------------------------- json

export function jsonSuccess(o: Extract<Outcome, { ok: true }>): Record<string, unknown> {
  const out: Record<string, unknown> = { ok: true, result: o.result ?? null, trace_id: o.traceId ?? null };
  if (o.timings) out.timings = o.timings;
  if (o.opId) out.op_id = o.opId;
  addEffect(out, o);
  return out;
}

/** `effect_state` (and `replayed`) next to `op_id` at the top level of a mutation's --json output. */
function addEffect(out: Record<string, unknown>, o: { effectState?: string; replayed?: boolean }): void {
  if (o.effectState) out.effect_state = o.effectState;
  if (o.replayed) out.replayed = true;
}

/** Human mode names the effect only when it matters: unknown, or an answer replayed from the ledger. */
function effectNote(o: { effectState?: string; replayed?: boolean; opId?: string }): string | undefined {
  const notes: string[] = [];
  if (o.replayed) notes.push(`note: op ${o.opId} already ran; this is its recorded outcome (it did not run again)`);
  if (o.effectState === "unknown") {
    notes.push(`effect: unknown — it may or may not have happened; check the page before acting (op ${o.opId} never runs twice)`);
  }
  return notes.length ? notes.join("\n") : undefined;
}

export function jsonError(o: Extract<Outcome, { ok: false }>): Record<string, unknown> {
  const e = o.error;
  const out: Record<string, unknown> = {
    ok: false,
    error: {
      code: e.code,
      message: e.message,
      hint: e.hint || hintFor(e.code, e.data?.reason),
      data: redact(e.data ?? {}, o.redact),
      exit_code: exitCodeFor(e.code),
    },
    trace_id: o.traceId ?? null,
  };
  if (o.timings) out.timings = o.timings;
  if (o.opId) out.op_id = o.opId;
  addEffect(out, o);
  return out;
}

// ---------------------------------------------------------------- human

type Formatter = (result: any, params: Record<string, unknown>) => string | { stdout: string; stderr?: string };

const line = (...parts: (string | number | undefined | null | false)[]) =>
  parts.filter((p) => p !== undefined && p !== null && p !== false && p !== "").join("  ");

function tabLine(t: any): string {
  const mark = t.current ? "*" : " ";
  let tag: string = t.owner === "session" ? (t.ownership === "borrowed" ? "borrowed" : "session") : t.owner;
  if (t.owner === "other_session" && t.owner_session_id) tag = `session ${t.owner_session_id}`;
  // A tab just opened has no title yet: its address says what it is.
  if (t.group) tag += `, group ${JSON.stringify(t.group.title)}`;
  return `${mark} ${t.tab_id}  [${tag}] ${t.title ? `${t.title} — ` : ""}${t.url || "about:blank"}`;
}

function sessionLine(s: any): string {
  const state = s.state === "ended" && s.end_reason ? `ended (${s.end_reason})` : s.state;
  const tab = s.current_tab_id != null ? `tab ${s.current_tab_id}` : undefined;
  const where =
    s.where === "group"
      ? `tab group ${s.group_id ?? "?"} in window ${s.window_id ?? "?"}`
      : s.window_id != null && `Agent Window ${s.window_id}`;
  return line(
    s.session_id,
    state,
    s.isolated && "isolated",
    tab,
    where,
    s.borrow === false && "no borrowing",
    s.name && JSON.stringify(s.name),
    `browser ${s.browser_instance_id}`,
  );
}

function browserLine(b: any): string {
  return line(
    b.instance_id,
    JSON.stringify(b.label),
    `${b.name} ${b.version}`,
    `extension ${b.extension_version}`,
    `protocol ${b.protocol_version}${b.skew ? " (skew)" : ""}`,
    `sessions ${b.sessions}`,
  );
}

function since(iso: string | undefined, uptimeMs?: number): string {
  const ms = uptimeMs ?? (iso ? Date.now() - Date.parse(iso) : NaN);
  if (!Number.isFinite(ms)) return "?";
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3600)}h`;
}

function statusText(r: any): string {
  const d = r.daemon ?? {};
  const out = [
    `daemon: running (pid ${d.pid}, up ${since(d.started_at, d.uptime_ms)})`,
    `version: ${d.version} (protocol ${d.protocol_version})`,
    `home: ${d.home}`,
    `socket: ${d.socket}`,
    `port: ${d.ws_port}`,
    ...(d.cli_port !== undefined ? [`cli port: ${d.cli_port} (the CLI's loopback TCP link)`] : []),
    ...(d.key_id ? [`trust key: ${d.key_id} (the extension's popup shows the same when paired)`] : []),
    `browsers: ${r.browsers?.length ?? 0}`,
    ...(r.browsers ?? []).map((b: any) => `  ${browserLine(b)}`),
    `sessions: ${r.sessions?.length ?? 0}`,
    ...(r.sessions ?? []).map((s: any) => `  ${sessionLine(s)}`),
  ];
  if (r.update)
    out.push(
      `update: bsk ${r.update.latest} is available${r.update.state === "deferred" ? " (waits for the sessions to end)" : ""}; install it with: bsk update`,
    );
  if (r.update_refused) out.push(`update: the last check was refused: ${r.update_refused.error}`);
  return out.join("\n");
}

function navText(r: any) {
  const text = line(r.url, r.status ?? "-");
  return r.navigated === false ? { stdout: text, stderr: "note: no navigation happened" } : text;
}

function list<T>(items: T[] | undefined, fmt: (x: T) => string, empty: string) {
  return items?.length ? items.map(fmt).join("\n") : { stdout: "", stderr: empty };
}

/** The catalog methods' formatters here (the see-and-act ones are in format-page.ts), typed by their results. */
const METHOD_FORMATTERS: MethodFormatters = {
  "system.status": statusText,
  "browser.list": (r) => list(r.browsers, browserLine, "no browsers connected"),
  "system.allow_extension": (r) => (r.allowed ?? []).join("\n"),
  "devices.list": (r) =>
    r.server_mode
      ? list(
          r.devices,
          (d) =>
            `${d.device_id}  ${d.label} (${d.browser.name} ${d.browser.version})  ${d.connected ? "connected" : `last seen ${d.last_seen_at ?? "never"}`}  expires ${d.expires_at}  generation ${d.generation}`,
          "no paired devices (bsk daemon pair)",
        )
      : { stdout: "", stderr: "this daemon is not in server mode: no devices (docs/remote.md)" },
  "devices.revoke": (r) =>
    line(
      r.revoked.length ? `revoked ${r.revoked.join(", ")}` : "nothing to revoke",
      r.closed_links > 0 && `${r.closed_links} live link(s) closed`,
    ),
  "session.start": (r) => String(r.session_id),
  "session.list": (r) => list(r.sessions, sessionLine, "no sessions"),
  "session.stop": (r) => {
    const failed = (r.failed ?? []).map((f: any) => `failed ${f.session_id}: ${f.code}: ${f.message}`);
    const left = r.left_tab_ids?.length ? [`left tab(s) ${r.left_tab_ids.join(", ")} open: the person had taken over`] : [];
    return {
      stdout: [...(r.stopped ?? []).map((s: string) => `stopped ${s}`), ...left].join("\n"),
      stderr: failed.join("\n") || undefined,
    };
  },
  "tab.list": (r) => {
    const tabs = list(r.tabs, (t: any) => tabLine({ ...t, current: t.current ?? t.tab_id === r.current_tab_id }), "no tabs");
    if (!r.isolated) return tabs;
    const note = "isolated session: an incognito window without the person's logins";
    return typeof tabs === "string" ? `${note}\n${tabs}` : { stdout: note, stderr: tabs.stderr };
  },
  "tab.create": (r) => tabLine({ ...r, current: true }),
  "tab.select": (r) => tabLine({ ...r, current: true }),
  "tab.close": (r) => line(`closed ${r.closed_tab_id}`, r.current_tab_id != null && `current ${r.current_tab_id}`),
  navigate: navText,
  "navigate.back": navText,
  "navigate.forward": navText,
  reload: navText,
  evaluate: (r) => (r.type === "undefined" ? "undefined" : typeof r.value === "string" ? r.value : JSON.stringify(r.value)),
  "system.pairing_code": (r) =>
    r.link
      ? {
          stdout: r.link,
          stderr: `Paste it into the bsk popup's Remote connection within ${Math.round(r.expires_in_ms / 60000)} min; check the popup shows key ${r.key_id}. It works once.`,
        }
      : {
          stdout: r.code,
          stderr: `Type it into the bsk extension's popup (Pairing) within ${Math.round(r.expires_in_ms / 60000)} min; it works once.`,
        },
};

/** CLI-only commands' formatters, by the name their outcome gives as `format`. */
const LOCAL_FORMATTERS: Record<string, Formatter> = {
  "daemon.status": statusText,
  "daemon.start": (r) =>
    [
      `daemon: ${r.already_running ? "already running" : "started"} (pid ${r.pid})`,
      `socket: ${r.socket}`,
      `port: ${r.ws_port}`,
      `log: ${r.log}`,
    ].join("\n"),
  "daemon.stop": (r) => (r.stopped ? `stopped (pid ${r.pid}${r.killed ? ", killed after 5 s" : ""})` : "not running"),
  logs: (r) => ({ stdout: (r.lines ?? []).map(readableLogLine).join("\n"), stderr: r.note }),
  "native.install": (r) => {
    const rows = (r.registrations ?? []).map(
      (x: any) => `${x.state.padEnd(7)} ${x.browser.padEnd(11)} ${x.manifest}${x.note ? `  (${x.note})` : ""}`,
    );
    return [`host: ${r.host} → ${r.launcher}`, ...rows].join("\n");
  },
  "native.uninstall": (r) => (r.removed ?? []).map((m: string) => `removed ${m}`).join("\n") || "nothing was registered",
  none: () => "",
  text: (r) => String(r.text ?? "").replace(/\n$/, ""),
  version: versionLine,
  update: (r) => {
    const note = r.extension_note ? `note: ${r.extension_note}` : undefined;
    if (r.updated) {
      const daemon = r.daemon?.restarted
        ? `daemon restarted (pid ${r.daemon.pid}, version ${r.daemon.version})`
        : "no daemon was running; the next command starts the new one";
      return { stdout: `updated bsk ${r.current} → ${r.latest}: ${r.binary} (the old one kept as ${r.previous})\n${daemon}`, stderr: note };
    }
    if (r.update_available)
      return { stdout: `bsk ${r.latest} is available (this is ${r.current}); install it with: bsk update`, stderr: note };
    return `bsk ${r.current} is up to date (latest release ${r.latest})`;
  },
  "install-skill.list": (r) =>
    (r.harnesses ?? [])
      .map((h: any) => `${h.harness.padEnd(12)} ${h.state.padEnd(13)} ${h.detected ? "detected" : "-       "} ${h.path}`)
      .join("\n"),
  "install-skill": (r) => {
    const out = [
      ...(r.installed ?? []).map((i: any) => `installed ${i.harness}: ${i.path}${i.was === "outdated" ? " (updated)" : ""}`),
      ...(r.current ?? []).map((i: any) => `current   ${i.harness}: ${i.path}`),
    ];
    const kept = (r.skipped ?? []).map(
      (i: any) => `kept ${i.harness}: ${i.path} was edited (${i.edited_files.join(", ")}); --force overwrites it`,
    );
    return { stdout: out.join("\n"), stderr: kept.join("\n") || undefined };
  },
};

/** The formatters output.ts holds itself: status, sessions, tabs, navigation and the CLI-only commands. */
const FORMATTERS: Partial<Record<string, Formatter>> = { ...METHOD_FORMATTERS, ...LOCAL_FORMATTERS };

/** The other modules' formatters and the streamed event's line, once loadFormatters has run. */
let loaded: { formatters: Partial<Record<string, Formatter>>; eventLine: (e: unknown) => string } | undefined;

/**
 * Loads the see-and-act, history and trace formatters when `format` is none of output.ts's own (all three at once:
 * they are small, and only the calls that show a page or a history need them). Before render.
 */
export async function loadFormatters(format?: string): Promise<void> {
  if (loaded || (format !== undefined && Object.hasOwn(FORMATTERS, format))) return;
  const [page, history, trace] = await Promise.all([
    import("./format-page.ts"),
    import("./format-history.ts"),
    import("./format-trace.ts"),
  ]);
  const formatters: Partial<Record<string, Formatter>> = {
    ...page.PAGE_FORMATTERS,
    ...history.HISTORY_FORMATTERS,
    ...trace.TRACE_FORMATTERS,
  };
  loaded = { formatters, eventLine: history.eventLine };
}

function formatterFor(format: string): Formatter | undefined {
  if (Object.hasOwn(FORMATTERS, format)) return FORMATTERS[format];
  // A missing load would print an outline where a formatter exists: a bug to show, never to hide.
  if (!loaded) throw new Error(`the formatter for ${format} was not loaded (loadFormatters)`);
  return loaded.formatters[format];
}

/**
 * An outline for results without a formatter: `key: value` lines, nested values indented below their key,
 * strings unquoted. Not YAML: nothing is quoted (render shows control characters as escapes, like all human
 * output), and it is not meant to be parsed back.
 */
export function toOutline(value: unknown, indent = ""): string {
  if (value === null || value === undefined) return `${indent}null`;
  if (typeof value !== "object") return `${indent}${typeof value === "string" ? value : JSON.stringify(value)}`;
  const lines: string[] = [];
  const scalar = (v: unknown) => v === null || typeof v !== "object" || (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0);
  const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v ?? null));
  if (Array.isArray(value)) {
    for (const v of value) {
      if (scalar(v)) lines.push(`${indent}- ${show(v)}`);
      else lines.push(`${indent}-\n${toOutline(v, `${indent}  `)}`);
    }
  } else {
    for (const [k, v] of Object.entries(value)) {
      if (scalar(v)) lines.push(`${indent}${k}: ${show(v)}`);
      else lines.push(`${indent}${k}:\n${toOutline(v, `${indent}  `)}`);
    }
  }
  return lines.join("\n");
}

export function humanSuccess(
  format: string | undefined,
  result: unknown,
  params: Record<string, unknown> = {},
  redactKeys: readonly string[] = [],
): { stdout: string; stderr?: string } {
  const f = format ? formatterFor(format) : undefined;
  const out = f ? f(result, redact(params, redactKeys)) : toOutline(result);
  return typeof out === "string" ? { stdout: out } : out;
}

export function humanError(e: BskError, redactKeys: readonly string[] = []): string {
  const lines = [`error: ${e.message}`, `hint: ${e.hint || hintFor(e.code, e.data?.reason)}`];
  const { reason: _reason, ...rest } = e.data ?? {};
  if (Object.keys(rest).length) lines.push(`detail: ${JSON.stringify(redact(rest, redactKeys))}`);
  return lines.join("\n");
}

// ---------------------------------------------------------------- render + emit

/**
 * Human output is shown to a terminal: every line of it goes through `visible` here, whichever formatter made it, so
 * page and agent text (titles, names, messages, hints quoting them) cannot drive the terminal. --json stays exact.
 */
export function render(o: Outcome, json: boolean): Rendered {
  if (!o.ok) {
    const exitCode = exitCodeFor(o.error.code);
    if (json) return { stdout: JSON.stringify(jsonError(o)), exitCode };
    return { stderr: visible([humanError(o.error, o.redact), effectNote(o)].filter(Boolean).join("\n")), exitCode };
  }
  if (json && o.streamed) return { exitCode: 0 };
  const exitCode = o.exitCode ?? outcomeExitCode(o.format, o.result);
  if (json) return { stdout: JSON.stringify(o.jsonBody ?? jsonSuccess(o)), exitCode };
  const h = humanSuccess(o.format, o.result, o.params, o.redact);
  const stderr = [h.stderr, effectNote(o)].filter(Boolean).join("\n") || undefined;
  return { stdout: visible(h.stdout), stderr: stderr && visible(stderr), exitCode };
}

/**
 * One event of `events --follow`, printed as it arrives: a JSON object per line, or the human event line (its
 * module loaded by the first event: a caller chains the calls to keep their order).
 */
export function printStreamed(frame: { event: string; payload: unknown }, json: boolean): void | Promise<void> {
  if (frame.event !== "session.event") return;
  if (json) return console.log(JSON.stringify(frame.payload));
  if (loaded) return console.log(visible(loaded.eventLine(frame.payload)));
  return loadFormatters().then(() => printStreamed(frame, json));
}

/** A line of `bsk logs --follow` (the daemon's log, which quotes page and agent text): raw with --json. */
export function printLogLine(line: string, json: boolean): void {
  console.log(json ? line : visible(readableLogLine(line)));
}

/** Render an outcome, its formatter loaded first, and print it; returns its exit code. */
export async function present(o: Outcome, json: boolean): Promise<number> {
  if (o.ok && !json && o.format !== undefined) await loadFormatters(o.format);
  return emit(render(o, json));
}

/** Print a rendered outcome; returns its exit code. */
export function emit(r: Rendered): number {
  if (r.stdout) console.log(r.stdout);
  if (r.stderr) writeStderr(r.stderr);
  return r.exitCode;
}

/**
 * Lines for stderr, as written: control characters shown as escapes (`visible`), then only the `error:` and
 * `warning:` words are coloured, and only on a terminal (NO_COLOR turns colour off, FORCE_COLOR on). console.error
 * would colour every line red.
 */
export function writeStderr(text: string): void {
  // Loaded here, not at the top: a call that prints nothing on stderr never pays for node:fs or node:tty.
  const { writeSync } = require("node:fs") as typeof import("node:fs");
  const shown = visible(text);
  writeSync(2, `${colourOn() ? paint(shown) : shown}\n`);
}

export function paint(text: string): string {
  return text.replace(/^error:/gm, "\x1b[31merror:\x1b[0m").replace(/^warning:/gm, "\x1b[33mwarning:\x1b[0m");
}

let colour: boolean | undefined;

function colourOn(): boolean {
  if (colour !== undefined) return colour;
  const force = Bun.env.FORCE_COLOR;
  if (force !== undefined && force !== "") colour = force !== "0" && force !== "false";
  else if (Bun.env.NO_COLOR) colour = false;
  else colour = stderrIsTerminal();
  return colour;
}

/**
 * Whether stderr is a terminal, told by node:fs (which writeStderr loads anyway): node:tty would load Node's streams,
 * ~5 ms more per call that prints on stderr. A character device on fd 2 that is not a terminal is /dev/null, where
 * colour shows nowhere.
 */
function stderrIsTerminal(): boolean {
  try {
    return (require("node:fs") as typeof import("node:fs")).fstatSync(2).isCharacterDevice();
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- progress

let stderrTTY: boolean | undefined;

/** Progress for long work: stderr only, only on a terminal, never with --json. */
export async function progress(text: string, json: boolean): Promise<void> {
  if (json) return;
  stderrTTY ??= stderrIsTerminal();
  if (stderrTTY) writeStderr(text);
}
