/**
 * Human output of the see-and-act commands (observation, interaction, waits, dialogs, diagnostics, emulation),
 * part of output.ts. Formatters see the call's params with secrets already masked; they never print a
 * redacted param (fill's value, type's text).
 */
import type { MethodName, Result } from "../protocol/catalog.ts";
import { OUTCOME_EXITS } from "../protocol/errors.ts";

type Params = Record<string, unknown>;
export type Shown = string | { stdout: string; stderr?: string };
export type PageFormatter = (result: any, params: Params) => Shown;
/** Each method's human formatter takes its result as the catalog types it: renaming a result field fails to compile. */
export type MethodFormatters = { [M in MethodName]?: (result: Result<M>, params: Params) => Shown };

const q = (s: unknown) => JSON.stringify(String(s ?? ""));

/** `button "Save" @e12`: what an action acted on, as the snapshot names it. */
export function actedOn(t: { ref?: string; role?: string; name?: string } | null | undefined, params: Params = {}): string {
  if (!t) return params.x !== undefined && params.y !== undefined ? `at (${params.x}, ${params.y})` : "";
  const ref = t.ref ? (t.ref.startsWith("@") ? t.ref : `@${t.ref}`) : "";
  return [t.role || "element", t.name ? q(t.name) : "", ref].filter(Boolean).join(" ");
}

/** `→ navigated http://… (200)`, `→ new tab 123`, `→ dialog confirm "Sure?"`, `→ dom changed`, `→ no visible effect`. */
export function effectText(e: any): string {
  switch (e?.kind) {
    case "navigated":
      return `→ navigated ${e.navigation?.url ?? "?"} (${e.navigation?.status ?? "-"})`;
    case "new_tab":
      return `→ new tab ${(e.new_tab_ids ?? []).join(", ")}`;
    case "dialog":
      return `→ dialog ${e.dialog?.type ?? "?"} ${q(e.dialog?.message)}`;
    case "download":
      // The name can be the page's own `download` attribute: kept on this line.
      return `→ download ${oneLine(e.download?.suggested_filename ?? e.download?.url ?? "")}${e.download?.id ? ` (kept as ${e.download.id}: bsk downloads save ${e.download.id} --out FILE)` : ""}`.trimEnd();
    case "browser_prompt":
      return `→ browser prompt ${promptLine(e.prompt)}${e.prompt?.pending ? " (waiting for the person: input fails with prompt_pending)" : " (answered)"}`;
    case "dom_changed":
      return `→ dom changed${notStarted(e)}`;
    default:
      return e?.dom_changed ? `→ dom changed${notStarted(e)}` : e?.download_not_started ? `→ none${notStarted(e)}` : NO_EFFECT;
  }
}

function notStarted(e: any): string {
  return e?.download_not_started
    ? "; a download was asked for but had not started after 1.5 s (a slow server, or the browser dropped it): bsk events --type download tells if it starts"
    : "";
}

const NO_EFFECT = "→ no visible effect";

/** `permission geolocation http://…`, `print http://…`, `external_protocol mailto:…`. */
function promptLine(p: any): string {
  const about = p?.detail?.permission ?? "";
  return [p?.kind ?? "?", about, p?.url ?? ""].filter(Boolean).join(" ");
}

/**
 * One line per action: verb, target, extra, effect. `own` names what the action itself changed (a field's value,
 * a checkbox, the files of an input) for when the page showed nothing more: that is an effect, not "none".
 */
function action(
  verb: string | ((r: any, p: Params) => string),
  extra?: (r: any, p: Params) => string | undefined,
  own?: (r: any) => string | undefined,
): PageFormatter {
  return (r, p) => {
    const v = typeof verb === "string" ? verb : verb(r, p);
    const seen = effectText(r.effect);
    const effect = seen === NO_EFFECT && own?.(r) ? `→ ${own(r)}` : seen;
    return [v, actedOn(r.target, p), extra?.(r, p), effect].filter(Boolean).join(" ");
  };
}

function snapshotText(r: any) {
  const more = r.truncated && r.cursor ? `-- more: --cursor ${r.cursor}` : undefined;
  return { stdout: r.text ?? "", stderr: more };
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ⏎ ");

/** Where a listing continues, on stderr so stdout stays one entry per line. */
function cursorNote(r: any, count: number, empty: string): string {
  const notes = [count ? `-- next: --since ${r.next_since}` : `${empty} (--since ${r.next_since})`];
  if (r.dropped) notes.push(`-- ${r.dropped} older entries were dropped by the ring buffer`);
  return notes.join("\n");
}

function consoleText(r: any) {
  const lines = (r.messages ?? []).map((m: any) => {
    const where = m.url ? `  (${m.url}${m.line ? `:${m.line}` : ""})` : "";
    return `${m.seq}  ${m.level.padEnd(7)}  ${oneLine(m.text)}${where}`;
  });
  return { stdout: lines.join("\n"), stderr: cursorNote(r, lines.length, "no messages") };
}

function networkText(r: any) {
  const lines = (r.requests ?? []).map((x: any) => {
    const status = x.error !== undefined ? "failed" : String(x.status ?? "-");
    const ms = x.duration_ms != null ? `${x.duration_ms}ms` : "";
    return [`${x.seq}`, status.padEnd(6), `${x.method} ${x.url}`, x.type, ms, x.error ? oneLine(x.error) : ""].filter(Boolean).join("  ");
  });
  return { stdout: lines.join("\n"), stderr: cursorNote(r, lines.length, "no requests") };
}

function dialogLine(d: any): string {
  const prompt = d.default_prompt ? `  default ${q(d.default_prompt)}` : "";
  return `${d.type} ${q(d.message)}${prompt}  (${d.url})`;
}

function emulateText(r: any): string {
  const v = r.viewport ?? {};
  const traits = [v.mobile && "mobile", r.touch && "touch"].filter(Boolean).join(" ");
  const state = r.emulating ? "emulating" : "not emulating";
  return [`${state} ${v.width}x${v.height} @${v.dpr}x`, traits, `— ${r.user_agent}`].filter(Boolean).join(" ");
}

function savedText(r: any): string {
  return `saved ${r.path} (${r.size} B, ${r.mime || "unknown type"}, sha256 ${String(r.sha256).slice(0, 12)}…) from ${r.url}`;
}

export const PAGE_FORMATTERS: MethodFormatters = {
  snapshot: snapshotText,
  observe: snapshotText,
  find: (r) => {
    const lines = (r.matches ?? []).map((m: any) => m.line);
    const rest = (r.total ?? lines.length) - lines.length;
    const stderr = !lines.length ? "no matches" : rest > 0 ? `-- ${rest} more matches (--limit)` : undefined;
    return { stdout: lines.join("\n"), stderr };
  },
  screenshot: (r) =>
    r.capture_id
      ? {
          stdout: r.path ?? "",
          stderr: `-- capture ${r.capture_id}, ${r.width}x${r.height} px: bsk click --capture ${r.capture_id} --image-x X --image-y Y`,
        }
      : (r.path ?? ""),
  "screenshot.full_page": (r) => ({
    stdout: r.path ?? "",
    stderr: `-- ${r.width}x${r.height} px, ${r.tiles} tiles${r.stopped === "max_height" ? ", cut at --max-height" : ""}`,
  }),
  upload: (r) => {
    const files = (r.files ?? []).map((f: any) => `${f.name} (${f.size} B)`).join(", ");
    const into = r.mode === "drop" ? `dropped on ${actedOn(r.target)}` : `into ${actedOn(r.input)}`;
    const seen = effectText(r.effect);
    const attached = r.mode !== "drop" && (r.files ?? []).length ? "→ files attached" : seen;
    return `uploaded ${files} ${into} ${seen === NO_EFFECT ? attached : seen}`;
  },
  download: savedText,
  "downloads.save": savedText,
  downloads: (r) =>
    r.downloads?.length
      ? r.downloads
          .map(
            (d: any) =>
              `${d.download_id}  ${String(d.state).padEnd(11)}  ${d.size} B  ${d.name}  tab ${d.tab_id}  ${d.url.length > 120 ? `${d.url.slice(0, 120)}…` : d.url}`,
          )
          .join("\n")
      : { stdout: "", stderr: "no downloads" },
  get_html: (r) => ({ stdout: r.html ?? "", stderr: r.truncated ? `-- cut at ${r.bytes} bytes (--max-bytes)` : undefined }),

  click: action((_r, p) => (Number(p.count) === 2 ? "double-clicked" : Number(p.count) === 3 ? "triple-clicked" : "clicked")),
  dblclick: action("double-clicked"),
  hover: action("hovered"),
  fill: action(
    "filled",
    (r) => (r.value_ok === false ? `(value mismatch: field holds ${q(r.actual)})` : undefined),
    (r) => (r.value_ok === false ? undefined : "value set"),
  ),
  type: action((r) => (r.target ? "typed into" : "typed")),
  press: action((_r, p) => `pressed ${p.key}${Number(p.count) > 1 ? ` ×${p.count}` : ""}${p.target ? " on" : ""}`),
  select: action((r) => `selected ${(r.selected ?? []).map((o: any) => q(o.label || o.value)).join(", ")} in`),
  check: action("checked", (r) => (r.checked ? undefined : "(still unchecked)")),
  uncheck: action("unchecked", (r) => (r.checked ? "(still checked)" : undefined)),
  scroll_to: action("scrolled to"),
  wheel: action(
    (_r, p) => `wheeled ${p.dx ?? 0},${p.dy ?? 0}${p.target ? " over" : ""}`,
    (r) => (r.scroll ? `(scroll ${r.scroll.x},${r.scroll.y})` : undefined),
  ),
  focus: action("focused"),
  blur: action("blurred", (r) => (r.was_focused ? undefined : "(it did not have focus)")),
  drag: action("dragged", (r) => (r.dropped_on ? `onto ${actedOn(r.dropped_on)}` : undefined)),
  "mouse.down": action((_r, p) => `mouse ${p.button ?? "left"} down`),
  "mouse.move": action("mouse moved"),
  "mouse.up": action((_r, p) => `mouse ${p.button ?? "left"} up`),

  wait_for: (r) => `${r.matched} after ${Math.round(r.waited_ms)}ms  ${r.url}`,
  wait: (r) => `waited ${Math.round(r.waited_ms)}ms`,
  request_help: (r) => {
    const note = r.note ? `  note ${q(r.note)}` : "";
    const missing = (r.targets ?? []).filter((t: any) => !t.found).map((t: any) => t.target);
    const notAsked = OUTCOME_EXITS.request_help?.[r.outcome];
    const stderr = [
      missing.length ? `-- not highlighted (not found): ${missing.join(", ")}` : "",
      notAsked ? `hint: ${notAsked.meaning}` : "",
    ];
    return {
      stdout: `${r.outcome} after ${Math.round(r.waited_ms)}ms${note}  ${r.url}`,
      stderr: stderr.filter(Boolean).join("\n") || undefined,
    };
  },

  "dialog.status": (r) =>
    [
      r.open && r.dialog ? `open ${dialogLine(r.dialog)}` : "no dialog",
      r.prompt ? `browser prompt ${promptLine(r.prompt)} (waiting for the person)` : "",
    ]
      .filter(Boolean)
      .join("\n"),
  "dialog.accept": (r) => `accepted ${dialogLine(r.dialog)}`,
  "dialog.dismiss": (r) =>
    r.prompt ? `dismissed browser prompt ${promptLine(r.prompt)} (page reloaded)` : `dismissed ${dialogLine(r.dialog)}`,

  console: consoleText,
  network: networkText,

  "tab.borrow": (r) => {
    const f = r.from ?? {};
    const state = [f.pinned && "pinned", f.muted && "muted", f.group_id >= 0 && `group ${f.group_id}`].filter(Boolean).join(", ");
    const from = `from window ${f.window_id} index ${f.index}${state ? `, ${state}` : ""}`;
    return `borrowed ${r.tab_id} into window ${r.window_id} (${from})${r.asked ? "" : " without a prompt: confirmation is off"}`;
  },
  "tab.return": (r) =>
    `returned ${r.tab_id} to window ${r.window_id} index ${r.index}${r.fallback ? " (its own window is gone)" : ""}` +
    (r.closed_tab_ids?.length ? `; closed the tabs it had opened: ${r.closed_tab_ids.join(", ")}` : ""),

  emulate: emulateText,
  "window.resize": (r) => {
    const view = r.viewport ? `  viewport ${r.viewport.width}x${r.viewport.height}` : "";
    return `window ${r.window_id} ${r.width}x${r.height}${view}`;
  },
};
