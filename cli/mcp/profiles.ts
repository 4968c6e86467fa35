/**
 * Which tools `bsk mcp` offers (`--tools`): every tool listing costs the client's context on every turn, so the
 * default is the core profile, the tools a whole session needs; `all` is every catalog tool; a list names them.
 */
import { BskError } from "../../protocol/errors.ts";
import { closest } from "../suggest.ts";
import type { McpTool } from "./tools.ts";

/** A whole session: start, navigate, see, act, tabs, dialogs, the person's help, stop (a unit test keeps its whole tools/list reply ≤ 4,000 tokens). */
export const CORE_TOOLS: readonly string[] = [
  "session_start",
  "session_stop",
  "navigate",
  "snapshot",
  "find",
  "click",
  "fill",
  "type",
  "press",
  "select",
  "screenshot",
  "wait_for",
  "tab_list",
  "tab_select",
  "tab_create",
  "tab_close",
  "dialog_accept",
  "dialog_dismiss",
  "request_help",
];

export const PROFILES = ["core", "all"] as const;
export const DEFAULT_PROFILE = "core";

export interface ToolSelection {
  tools: McpTool[];
  /** How the selection was asked for: `core`, `all` or the list as given. */
  profile: string;
}

/** `--tools core|all|name,name,…` (profile names may be in a list: `core,evaluate`); unknown names are refused. */
export function selectTools(spec: string | undefined, all: McpTool[]): ToolSelection {
  const asked = (spec ?? DEFAULT_PROFILE).trim();
  const words = asked
    .split(",")
    .map((w) => w.trim())
    .filter(Boolean);
  if (!words.length) {
    throw new BskError("invalid_params", "--tools is empty", { hint: `Give core, all or tool names separated by commas.` });
  }
  const known = new Set(all.map((t) => t.name));
  const wanted = new Set<string>();
  for (const w of words) {
    if (w === "all") for (const name of known) wanted.add(name);
    else if (w === "core") for (const name of CORE_TOOLS) wanted.add(name);
    else if (known.has(w)) wanted.add(w);
    else {
      const near = closest(w.replace(/[.\s-]/g, "_"), [...PROFILES, ...known]);
      throw new BskError("invalid_params", `--tools: no tool ${JSON.stringify(w)}`, {
        hint: `${near ? `Did you mean ${near}? ` : ""}Give core, all or tool names separated by commas (bsk mcp --tools all, then tools/list, shows every name).`,
      });
    }
  }
  return { tools: all.filter((t) => wanted.has(t.name)), profile: words.join(",") };
}
