/**
 * How a method is declared. Each tool family file in `methods/` declares its methods once;
 * the catalog merges them, and everything else (CLI, dispatchers, SKILL.md, JSON Schemas) derives from it.
 * Schemas are thunks so a process builds only the ones it uses (CLI start-up stays cheap).
 */
import { z } from "zod";
import { ASKED_EFFECTS, withApprovalField } from "./approval.ts";

export type Effect = "BrowserMutation" | "TransientInput" | "PassiveRead" | "ControlPlane";
export type Owner = "daemon" | "extension";
/**
 * Who may call a method. agent: a command and an MCP tool. person: a command the person runs, not a tool (the
 * daemon's administration). link: the extension, on its link to the daemon (hello, handshake, pairing). wire: bsk's
 * own processes, never a command (the daemon's calls into the extension, transfers, cancel, shutdown).
 */
export type Callers = "agent" | "person" | "link" | "wire";
/** none: no session; session: needs session_id; tab: session_id plus an optional tab_id (default: the current tab). */
export type Scope = "none" | "session" | "tab";

/** A flag as the CLI reads it (cli/catalog-table.ts resolves each catalog flag to this at build time). */
export interface FlagSpec {
  /** Params key the flag fills. */
  param: string;
  /** `file`: the CLI reads the named file (`-` = stdin) and sends its text as the param (secrets stay out of argv). */
  /** `json`: the value is parsed as JSON (an object param such as request-help's --until). */
  type: "string" | "boolean" | "number" | "duration" | "list" | "enum" | "file" | "json";
  description: string;
  alias?: string;
  options?: readonly string[];
  /** Shown in help: the param's default (a duration's as `60s`). */
  default?: string | number | boolean;
  /** Fixed value for the param when the flag is present (e.g. `--all` → stop_all: true). */
  value?: unknown;
  /** Environment variable read when the flag is absent. */
  env?: string;
}

/**
 * A flag as the catalog writes it: only what the params schema cannot say. Left out, `param` is the flag's name
 * with `_` for `-`, and type, options, default and description are the param's own (cli/catalog-table.ts derives
 * them at build time); given, they say how the CLI differs (a `duration` or `file` flag, its own wording).
 */
export type CliFlag = Omit<FlagSpec, "param" | "type" | "description"> & Partial<Pick<FlagSpec, "param" | "type" | "description">>;

/** The params key a catalog flag fills. */
export function flagParam(name: string, flag: Pick<CliFlag, "param">): string {
  return flag.param ?? name.replace(/-/g, "_");
}

export interface PositionalSpec {
  param: string;
  description: string;
  required?: boolean;
  type?: "string" | "number" | "duration";
  /** Joins all remaining words into this param (e.g. an expression with spaces). */
  rest?: boolean;
}

export interface CliShape {
  /** Command words after `bsk`, e.g. ["tab", "list"]. */
  words: readonly string[];
  positionals?: readonly PositionalSpec[];
  flags?: Readonly<Record<string, CliFlag>>;
  examples?: readonly string[];
  /** The call's default --timeout when it is longer than the usual 30 s (uploads, downloads, full-page captures). */
  defaultTimeoutMs?: number;
  /** `--<flag>` on this command runs the command with these words instead (`screenshot --full-page`). */
  variants?: Readonly<Record<string, readonly string[]>>;
}

export interface MethodDef<
  P extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  O extends Owner = Owner,
  C extends Callers = Callers,
> {
  /** Kept literal (O, C) so types can select methods by owner and callers (ExtensionMethodName, DaemonMethodName). */
  owner: O;
  /** What a call does to the browser: the ledger, the person's control and MCP annotations follow from it. */
  effect: Effect;
  callers: C;
  scope: Scope;
  description: string;
  params: () => P;
  result: () => R;
  /** Absent for wire-only methods (handshake, the daemon's calls into the extension). */
  cli?: CliShape;
  /** Params whose values are secrets: never logged, echoed or stored in clear. */
  redact?: readonly string[];
  /** Result key holding base64 bytes the CLI writes to a file (its path replaces the bytes in the output). */
  fileResult?: FileResultSpec;
  /** Result key holding a JSON document the CLI writes to a file (record start's trace); the result keeps it and gains `path`. */
  jsonFile?: JsonFileSpec;
  /** A params key holding the method's own wait in ms; the daemon extends the call deadline to cover it. */
  waitParam?: string;
  /** Bytes moved through the daemon's transfer staging (methods/files.ts); the CLI alone touches local files. */
  transfer?: TransferSpec;
  /** How the method as an MCP tool (cli/mcp/tools.ts) differs from its wire params, beyond what its file specs imply. */
  mcp?: McpShape;
  /**
   * Answered while a JS dialog holds the tab instead of racing it: it needs no page (the worker's own buffers), it is
   * how the dialog is answered, or it waits for the person, who may answer the dialog themselves.
   */
  runsUnderDialog?: boolean;
  /** A ControlPlane method that changes nothing (its MCP tool is read-only). */
  readsOnly?: boolean;
  /** The session's end is this call's answer (record.await: the trace), so the end does not cancel it. */
  answeredByTheEnd?: boolean;
  /**
   * A TransientInput method that sends input only when this boolean param is true (observe: probe_hover); without
   * it, the call is a read, which an ask-first site does not ask the person about.
   */
  inputWhen?: string;
}

export interface McpShape {
  /**
   * Params the tool does not offer, refused when given: the MCP server fills them itself (session start's owner_pid),
   * or a tool result cannot carry what they ask for (a followed event stream).
   */
  hidden: readonly string[];
  /** The tool's description when the catalog's speaks of a hidden param. */
  description?: string;
}

export interface FileResultSpec {
  /** Result key holding the base64 bytes. */
  data: string;
  /** Params key naming the file to write. */
  pathParam: string;
  /** Without it an existing file is refused before the call starts (out_exists): one rule for every writer. */
  overwriteParam: string;
  /** Name of a new file in the temp directory (or in a directory given). */
  defaultName: string;
}

export interface JsonFileSpec {
  data: string;
  pathParam: string;
  /** Without it an existing file is refused before the call starts (out_exists). */
  overwriteParam: string;
  defaultName: string;
}

export interface TransferSpec {
  /** Params key of local paths the CLI stages first and replaces with StagedFile entries. */
  upload?: string;
  /** The result names a staged transfer (`transfer_id`) the CLI writes to the file at `pathParam` (default: temp dir). */
  download?: {
    pathParam: string;
    /** Without it an existing file is refused before the call starts (out_exists). */
    overwriteParam: string;
    /** The path must be given (a download: it has no default place), and may not be a directory. */
    outRequired?: boolean;
    defaultName: string;
    ext?: string;
    /** The daemon keeps the staged bytes after the CLI wrote them (a kept download can be saved again). */
    keep?: boolean;
    /** With this param true the bytes are several files (the result's `images`), named after the path (cli/tile-files.ts). */
    tilesParam?: string;
  };
}

/** A public method: a command (and, for agents, an MCP tool). */
export function method<P extends z.ZodType, R extends z.ZodType, O extends Owner>(
  def: Omit<MethodDef<P, R, O>, "callers" | "cli"> & { callers?: "agent" | "person"; cli: CliShape },
): MethodDef<P, R, O, "agent" | "person"> {
  const result = ASKED_EFFECTS.has(def.effect) ? () => withApprovalField(def.result()) : def.result;
  return { ...def, result, callers: def.callers ?? "agent" };
}

/** A method only bsk's own processes send (no command, no tool); each family keeps these apart from its public ones. */
export function wireMethod<P extends z.ZodType, R extends z.ZodType, O extends Owner, C extends "link" | "wire">(
  def: Omit<MethodDef<P, R, O, C>, "cli"> & { cli?: never },
): MethodDef<P, R, O, C> {
  return def;
}

/** A session id as a caller passes it; an empty one (a shell variable lost between commands) is refused in words. */
export const SessionId = () =>
  z
    .string()
    .min(
      1,
      "is empty: pass the id bsk session start printed, written out (a shell variable does not survive into the next command's shell)",
    )
    .max(32, "is longer than any session id");

/** Params every session-scoped method carries. */
export const sessionParam = () => ({
  session_id: SessionId().describe("Session id from bsk session start"),
});

/** Params every tab-scoped method carries. */
export const tabParams = () => ({
  ...sessionParam(),
  tab_id: z.number().int().optional().describe("Default: the current tab"),
});

export const WaitUntil = () => z.enum(["commit", "domcontentloaded", "load", "networkidle"]).describe("Navigation milestone to wait for");

export const TabInfo = () =>
  z.object({
    tab_id: z.number().int(),
    window_id: z.number().int(),
    index: z.number().int(),
    url: z.string(),
    title: z.string(),
    active: z.boolean(),
    /** session: the calling session owns it; other_session: another session does; person: the person's. */
    owner: z.enum(["session", "other_session", "person"]),
    owner_session_id: z.string().optional(),
    /** How the session came to own it. */
    ownership: z.enum(["created", "opened", "borrowed"]).optional(),
    current: z.boolean().optional(),
    /** The calling session's tab group (session start --where group), when the tab is in it. */
    group: z.object({ id: z.number().int(), title: z.string() }).optional(),
  });

/** Where a session's tabs live: an Agent Window of its own, or a tab group in the person's window. */
export const SessionWhere = () => z.enum(["window", "group"]);

export const SessionInfo = () =>
  z.object({
    session_id: z.string(),
    name: z.string().optional(),
    browser_instance_id: z.string(),
    state: z.enum(["starting", "live", "taken_over", "ended"]),
    window_id: z.number().int().optional(),
    current_tab_id: z.number().int().nullable().optional(),
    created_at: z.string(),
    last_used_at: z.string(),
    owner_pid: z.number().int().optional(),
    lease_ms: z.number().int().optional(),
    ended_at: z.string().optional(),
    end_reason: z.string().optional(),
    /** Borrowed tabs that closed with the Agent Window when the person closed it (the browser can reopen them). */
    lost_tab_ids: z.array(z.number().int()).optional(),
    /** session start --allow-origin (canonical) and --block-requests. */
    allow_origins: z.array(z.string()).optional(),
    block_requests: z.boolean().optional(),
    /** session start --isolated: an incognito window without the person's logins. */
    isolated: z.boolean().optional(),
    /** session start --where (absent: window) and the group's id; borrow false: --no-borrow. */
    where: SessionWhere().optional(),
    group_id: z.number().int().optional(),
    borrow: z.boolean().optional(),
    /** session start --confirm-writes. */
    confirm_writes: z.boolean().optional(),
  });

export const BrowserInfo = () =>
  z.object({
    instance_id: z.string(),
    label: z.string(),
    name: z.string(),
    version: z.string(),
    extension_version: z.string(),
    protocol_version: z.string(),
    skew: z.boolean(),
    connected_at: z.string(),
    sessions: z.number().int(),
    /** A remote browser (server mode): the paired device it linked as. */
    device_id: z.string().optional(),
  });

/** A target: a ref from a snapshot (`@e12` or `e12`) or a CSS selector that must match exactly one element. */
export const Target = () => z.string().min(1).max(4096).describe("A ref from the last snapshot (@e12) or a CSS selector for one element");

/** What an action acted on, echoed in its result. */
export const ActedOn = () =>
  z.object({
    ref: z.string().optional(),
    role: z.string(),
    name: z.string(),
  });

/**
 * What the browser reported between an input and a short settle after it (one frame; longer only while a
 * navigation starts). `kind` is the most significant; later effects go to the session's event stream.
 */
/** A browser prompt (permission, printing, a device chooser, another app) up in a tab: the tab takes no input meanwhile. */
export const PromptInfo = () =>
  z.object({
    kind: z.enum(["permission", "external_protocol", "print", "device_chooser"]),
    url: z.string(),
    /** The permission asked for (geolocation, camera, …), the scheme of the other app, the device kind. */
    detail: z.record(z.string(), z.string()),
  });

/** A browser prompt a call raised, and whether it still waits for the person. */
export const RaisedPrompt = () => PromptInfo().extend({ pending: z.boolean() });

export const ActionEffect = () =>
  z.object({
    /** browser_prompt: the action made the browser ask the person something (see `prompt`); it acted. */
    kind: z.enum(["navigated", "new_tab", "dialog", "download", "browser_prompt", "dom_changed", "none"]),
    /** The browser prompt the action raised; `pending`: still waiting for the person (input calls fail prompt_pending). */
    prompt: RaisedPrompt().optional(),
    navigation: z.object({ url: z.string(), status: z.number().int().nullable() }).optional(),
    new_tab_ids: z.array(z.number().int()).optional(),
    dialog: z.object({ type: z.string(), message: z.string() }).optional(),
    download: z
      .object({
        url: z.string(),
        suggested_filename: z.string().optional(),
        /** The session keeps it: `bsk downloads save <id> --out FILE` writes it out. */
        id: z.string().optional(),
      })
      .optional(),
    /**
     * The input asked for a download (a download link, the page's script) that the browser had not started when the
     * reply was made, 1.5 s on: a slow server, or one the browser dropped (a frame's past 10 within a second) or
     * blocked. If it starts, a `download` event says so; clicking again may download twice.
     */
    download_not_started: z.literal(true).optional(),
    dom_changed: z.boolean(),
  });

export const ActionResult = () =>
  z.object({
    tab_id: z.number().int(),
    target: ActedOn().nullable(),
    effect: ActionEffect(),
  });

/** The largest viewport side bsk sets (emulate viewport, session start --width): points lie within it. */
export const MAX_VIEWPORT_PX = 7680;
/** A point in the viewport, CSS px; the extension also refuses one outside the tab's current viewport. */
export const Coordinate = () => z.number().min(0).max(MAX_VIEWPORT_PX);
/** A wheel delta, CSS px, signed: at most this far per call (repeat to go further). */
export const MAX_WHEEL_DELTA_PX = 100_000;
export const WheelDelta = () => z.number().min(-MAX_WHEEL_DELTA_PX).max(MAX_WHEEL_DELTA_PX);

export const Modifiers = () => z.array(z.enum(["Alt", "Control", "Meta", "Shift"])).default([]);
