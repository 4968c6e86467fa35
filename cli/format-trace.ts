/**
 * Human output of `record start` / `record stop`, part of output.ts: a recorded trace told as the bsk commands an
 * agent would run to do the same (targets as the CSS selector recorded with them, else a `bsk find` for the
 * role and name), with what each step acted on. Redacted values are never printed; their fill reads from a file.
 */
import type { RecordTraceT, TraceStepT, TraceTargetT } from "../protocol/trace.ts";
import type { MethodFormatters } from "./format-page.ts";

/** Quoted for a POSIX shell, only when it needs it. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function described(t: TraceTargetT): string {
  return t.name ? `${t.role} ${JSON.stringify(t.name)}` : t.role;
}

const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * What `bsk find` should look for: role and name, and when others share them, a /regex/ that also requires the
 * context the snapshot prints on that line (`in: "Card B"`, `nth=2`), so it matches one line only.
 */
export function findQuery(t: TraceTargetT): string {
  if (!t.context) return described(t);
  const head = t.name ? `${t.role} ${JSON.stringify(t.name)}` : t.role;
  return `/^${reEscape(head)} @e\\d+ .*[[ ]${reEscape(t.context)}[,\\]]/`;
}

/** A CSS selector reaches the main frame only: inside an iframe, the target is a ref found by role and name. */
const bySelector = (t: TraceTargetT) => (t.selector && !t.frame ? t.selector : undefined);

/** The target as a command argument: its recorded selector, else a placeholder the agent fills from `bsk find`. */
function arg(t: TraceTargetT): string {
  const sel = bySelector(t);
  return sel ? shellQuote(sel) : "@eN";
}

function chord(key: string, modifiers: readonly string[]): string {
  return [...modifiers.map((m) => (m === "Control" ? "Ctrl" : m)), key === " " ? "Space" : key].join("+");
}

/** The command for one step (without `--session`), and a note of what it acted on. */
export function stepCommand(step: TraceStepT): { command: string; note: string } {
  switch (step.op) {
    case "navigate":
      return step.cause === "typed"
        ? { command: `bsk navigate ${shellQuote(step.to)}`, note: "typed" }
        : { command: `# → ${step.to}`, note: step.cause.replace("_", " ") };
    case "click": {
      const extra = [
        step.count === 2 ? "" : step.count ? `--count ${step.count}` : "",
        step.modifiers?.length ? `--modifiers ${step.modifiers.join(",")}` : "",
      ];
      const verb = step.count === 2 ? "dblclick" : "click";
      return { command: [`bsk ${verb}`, arg(step.target), ...extra].filter(Boolean).join(" "), note: described(step.target) };
    }
    case "fill":
      return step.redacted
        ? { command: `bsk fill ${arg(step.target)} --value-file -`, note: `${described(step.target)}, secret (not recorded)` }
        : { command: `bsk fill ${arg(step.target)} ${shellQuote(step.value)}`, note: described(step.target) };
    case "select":
      return {
        command: [`bsk select ${arg(step.target)}`, ...step.values.map((v) => `--value ${shellQuote(v)}`)].join(" "),
        note: described(step.target),
      };
    case "press":
      return {
        command: [
          `bsk press ${shellQuote(chord(step.key, step.modifiers))}`,
          step.target && bySelector(step.target) ? `--target ${shellQuote(step.target.selector!)}` : "",
        ]
          .filter(Boolean)
          .join(" "),
        note: step.target ? described(step.target) : "",
      };
    case "check":
    case "uncheck":
      return { command: `bsk ${step.op} ${arg(step.target)}`, note: described(step.target) };
  }
}

/** The whole trace as numbered command lines, with a `bsk find` before each step whose target had no unique selector. */
export function traceLines(trace: RecordTraceT): string[] {
  const lines: string[] = [];
  const width = String(trace.steps.length).length;
  for (const step of trace.steps) {
    const { command, note } = stepCommand(step);
    const n = `${String(step.id).padStart(width)}.`;
    if ("target" in step && step.target && !bySelector(step.target) && step.op !== "press") {
      const where = step.target.frame ? ` (in the frame ${step.target.frame})` : "";
      lines.push(`${n} bsk find ${shellQuote(findQuery(step.target))}   # then use its @eN${where}:`);
      lines.push(`${" ".repeat(n.length)} ${command}`);
    } else lines.push(`${n} ${command}${note ? `   # ${note}` : ""}`);
  }
  return lines;
}

export const TRACE_FORMATTERS: MethodFormatters = {
  "record.start": (r) => {
    const t = r.trace as RecordTraceT;
    const head = `recorded ${t.steps.length} step${t.steps.length === 1 ? "" : "s"} from ${t.start_url} (ended by ${t.stopped_by.replace("_", " ")})`;
    const where = r.path ? `trace: ${r.path}` : "";
    return [head, where, ...traceLines(t)].filter(Boolean).join("\n");
  },
  "record.stop": (r) => `finished recording ${r.session_id} (${r.steps} step${r.steps === 1 ? "" : "s"})`,
};
