/**
 * What a page-changing call is about to do, in the words the approval panel shows: "click button 'Pay now'",
 * "fill textbox 'Amount' with 12 characters". A target is named by the role and name its ref had in the last
 * snapshot (the worker's ref table: nothing is asked of the page); a CSS selector is quoted. Values typed into
 * fields are never shown, only their length.
 */
import type { ExtensionMethodName } from "../../../../protocol/catalog.ts";
import { parseRef } from "../../cdp/refs/resolve.ts";
import { lookupRef } from "../../cdp/refs/table.ts";

type Params = Record<string, unknown>;

const MAX_SHOWN = 120;

function clip(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > MAX_SHOWN ? `${one.slice(0, MAX_SHOWN - 1)}…` : one;
}

/** `button 'Pay now'` for a ref; `the element 'form > button'` for a selector. */
export async function describeTarget(sessionId: string, target: unknown): Promise<string | null> {
  if (typeof target !== "string" || !target) return null;
  const n = parseRef(target);
  if (n === null) return `the element '${clip(target)}'`;
  const { entry } = await lookupRef(sessionId, n).catch(() => ({ entry: undefined }));
  if (!entry) return `element @e${n}`;
  return entry.name ? `${entry.role} '${clip(entry.name)}'` : entry.role;
}

const chars = (v: unknown) => {
  const n = typeof v === "string" ? [...v].length : 0;
  return n === 1 ? "1 character" : `${n} characters`;
};

const at = (p: Params) => (typeof p.x === "number" && typeof p.y === "number" ? ` at (${p.x}, ${p.y})` : "");

/** The sentence for `method` with `params` (already validated by the method's schema). */
export async function describeCall(method: ExtensionMethodName, p: Params): Promise<string> {
  const sessionId = String(p.session_id ?? "");
  const target = async (key = "target") => (await describeTarget(sessionId, p[key])) ?? "the page";
  switch (method) {
    case "click":
      return `click ${await target()}${p.target ? "" : at(p)}`;
    case "dblclick":
      return `double-click ${await target()}${p.target ? "" : at(p)}`;
    case "hover":
      return `move the pointer over ${await target()}${p.target ? "" : at(p)}`;
    case "fill":
      return `fill ${await target()} with ${chars(p.value)}`;
    case "type":
      return `type ${chars(p.text)} into ${p.target ? await target() : "the focused element"}`;
    case "press":
      return `press ${clip(String(p.key))}${p.target ? ` in ${await target()}` : ""}`;
    case "select": {
      const values = Array.isArray(p.values) ? p.values.map((v) => `'${clip(String(v))}'`).join(", ") : "";
      return `choose ${values} in ${await target()}`;
    }
    case "check":
      return `check ${await target()}`;
    case "uncheck":
      return `uncheck ${await target()}`;
    case "focus":
      return `focus ${await target()}`;
    case "blur":
      return `take the focus from ${await target()}`;
    case "scroll_to":
      return `scroll to ${await target()}`;
    case "wheel":
      return `scroll ${p.target ? await target() : "the page"}`;
    case "drag":
      return `drag ${await target("from")} to ${await target("to")}`;
    case "upload": {
      const files = Array.isArray(p.files) ? p.files.map((f) => clip(String((f as { name?: unknown }).name ?? "a file"))) : [];
      return `upload ${files.length === 1 ? `the file ${files[0]}` : `${files.length} files (${files.join(", ")})`} to ${await target()}`;
    }
    case "download":
      return `download ${await target()}`;
    case "evaluate":
      return `run a script in the page: ${clip(String(p.expression ?? ""))}`;
    case "navigate":
      return `go to ${clip(String(p.url ?? ""))}`;
    case "navigate.back":
      return "go back to the previous page";
    case "navigate.forward":
      return "go forward to the next page";
    case "reload":
      return "reload the page";
    case "mouse.down":
      return `press the mouse button${at(p)}`;
    case "mouse.up":
      return `release the mouse button${at(p)}`;
    case "mouse.move":
      return `move the pointer${at(p)}`;
    case "dialog.accept":
      return p.text === undefined ? "accept the page's dialog" : `answer the page's dialog with ${chars(p.text)}`;
    case "dialog.dismiss":
      return "dismiss the page's dialog";
    case "emulate":
      return "change how the page is shown (device, size or user agent)";
    case "observe":
      return "look at the page, moving the pointer over it to find menus";
    case "screenshot.full_page":
      return "scroll through the whole page to capture it";
    case "tab.close":
      return "close this tab";
    case "tab.select":
      return "switch to this tab";
    case "tab.return":
      return "give this tab back to you";
    case "tab.create":
      return `open a new tab${p.url ? ` at ${clip(String(p.url))}` : ""}`;
    case "window.resize":
      return "resize the agent's window";
    default:
      return `${method} on this page`;
  }
}
