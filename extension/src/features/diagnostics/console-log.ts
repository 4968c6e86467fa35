/**
 * Console messages of one tab from CDP events: Runtime.consoleAPICalled (console.*), Runtime.exceptionThrown
 * (uncaught errors and rejections) and Log.entryAdded (the browser's own: failed resource loads, CSP,
 * interventions). Pure (no chrome.*).
 */
import { Ring } from "./ring.ts";

export const CONSOLE_LEVELS = ["debug", "log", "info", "warning", "error"] as const;
export type ConsoleLevel = (typeof CONSOLE_LEVELS)[number];

export interface ConsoleEntry {
  seq: number;
  level: ConsoleLevel;
  text: string;
  url?: string;
  line?: number;
  /** ms since the epoch */
  ts: number;
}

/** Where a message came from; `network`: the browser's own note about a failed load (also a failed request). */
export type ConsoleOrigin = "console" | "exception" | "browser" | "network";

/** log and info rank the same, as in DevTools' "Info" filter. */
const RANK: Record<ConsoleLevel, number> = { debug: 0, log: 1, info: 1, warning: 2, error: 3 };

export function atLeast(level: ConsoleLevel, min: ConsoleLevel | undefined): boolean {
  return min === undefined || RANK[level] >= RANK[min];
}

/** Longest text kept per entry (reads cut further with --max-text). */
export const STORED_TEXT_CHARS = 16_384;
/**
 * Characters of text and URLs kept per tab: a page that logs long messages keeps fewer of them (its newest), not
 * 1,000 × 16 KiB in the service worker's memory.
 */
export const CONSOLE_BUDGET_CHARS = 1_048_576;

interface RemoteObject {
  type: string;
  subtype?: string;
  className?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
  preview?: { subtype?: string; overflow?: boolean; properties?: { name: string; type: string; subtype?: string; value?: string }[] };
}

interface CallFrame {
  url: string;
  lineNumber: number;
}

function previewText(o: RemoteObject): string | undefined {
  const p = o.preview;
  if (!p?.properties) return undefined;
  const value = (x: { type: string; value?: string }) => (x.type === "string" ? JSON.stringify(x.value ?? "") : (x.value ?? x.type));
  const more = p.overflow ? ", …" : "";
  if (o.subtype === "array") return `[${p.properties.map(value).join(", ")}${more}]`;
  const body = p.properties.map((x) => `${x.name}: ${value(x)}`).join(", ");
  const name = o.className && o.className !== "Object" ? `${o.className} ` : "";
  return `${name}{${body}${more}}`;
}

/** One console argument as the DevTools console would print it, roughly. */
export function showValue(o: RemoteObject): string {
  if (o.type === "string") return String(o.value ?? "");
  if (o.unserializableValue !== undefined) return o.unserializableValue;
  if (o.type === "undefined") return "undefined";
  if (o.subtype === "null") return "null";
  if (o.type !== "object" && o.type !== "function" && "value" in o) return String(o.value);
  if (o.subtype === "error") return o.description ?? "Error";
  if (o.type === "object" && o.subtype !== "node") return previewText(o) ?? o.description ?? "Object";
  return o.description ?? o.type;
}

/** console.log("%s is %d", a, b): substitutes format specifiers of a leading string, then appends the rest. */
export function formatArgs(args: RemoteObject[]): string {
  if (!args.length) return "";
  const [first, ...rest] = args;
  if (first!.type !== "string" || !String(first!.value).includes("%")) return args.map(showValue).join(" ");
  let i = 0;
  const head = String(first!.value).replace(/%([sdifoOc%])/g, (whole, spec: string) => {
    if (spec === "%") return "%";
    if (i >= rest.length) return whole;
    const arg = rest[i++]!;
    if (spec === "c") return "";
    if ((spec === "d" || spec === "i") && typeof arg.value === "number") return String(Math.trunc(arg.value));
    return showValue(arg);
  });
  return [head, ...rest.slice(i).map(showValue)].join(" ");
}

const API_LEVEL: Record<string, ConsoleLevel> = {
  debug: "debug",
  info: "info",
  warning: "warning",
  error: "error",
  assert: "error",
};

const LOG_LEVEL: Record<string, ConsoleLevel> = { verbose: "debug", info: "info", warning: "warning", error: "error" };

/** Console calls that carry no message of their own. */
const SILENT = new Set(["endGroup", "profile", "profileEnd"]);

export class ConsoleLog {
  readonly ring: Ring<ConsoleEntry>;

  /**
   * `onAdd` hears each new entry and where it came from (ConsoleOrigin). Messages logged before `notBefore` (ms
   * since the epoch: when a borrowed tab was lent) are not kept, replayed or not.
   */
  constructor(
    capacity = 1000,
    private readonly onAdd?: (e: ConsoleEntry, origin: ConsoleOrigin) => void,
    private readonly notBefore = 0,
  ) {
    this.ring = new Ring(capacity, { chars: CONSOLE_BUDGET_CHARS, weigh: (e) => e.text.length + (e.url?.length ?? 0) });
  }

  private add(
    level: ConsoleLevel,
    text: string,
    ts: number | undefined,
    where?: { url?: string; lineNumber?: number },
    origin: ConsoleOrigin = "console",
  ): void {
    if ((ts ?? Date.now()) < this.notBefore) return;
    const entry = this.ring.push((seq) => {
      const e: ConsoleEntry = { seq, level, text: text.slice(0, STORED_TEXT_CHARS), ts: ts ?? Date.now() };
      if (where?.url) e.url = where.url.slice(0, STORED_TEXT_CHARS);
      if (where?.url && where.lineNumber !== undefined) e.line = where.lineNumber + 1;
      return e;
    });
    this.onAdd?.(entry, origin);
  }

  /** Feeds one CDP event of the tab; events of other domains are ignored. */
  onEvent(method: string, params: Record<string, any>): void {
    switch (method) {
      case "Runtime.consoleAPICalled": {
        if (SILENT.has(params.type)) return;
        const frame: CallFrame | undefined = params.stackTrace?.callFrames?.[0];
        let text = formatArgs(params.args ?? []);
        if (params.type === "assert") text = text ? `Assertion failed: ${text}` : "Assertion failed";
        if (params.type === "clear") text = "console.clear()";
        this.add(API_LEVEL[params.type] ?? "log", text, params.timestamp, frame);
        return;
      }
      case "Runtime.exceptionThrown": {
        const d = params.exceptionDetails ?? {};
        const thrown = d.exception ? showValue(d.exception) : "";
        const text = thrown ? `${d.text ?? "Uncaught"} ${thrown}` : (d.text ?? "Uncaught exception");
        const frame: CallFrame | undefined = d.stackTrace?.callFrames?.[0];
        this.add("error", text, params.timestamp, d.url ? { url: d.url, lineNumber: d.lineNumber } : frame, "exception");
        return;
      }
      case "Log.entryAdded": {
        const e = params.entry ?? {};
        // Some browser messages carry format arguments ("… %o" with the element it is about).
        const text = e.args?.length ? formatArgs([{ type: "string", value: String(e.text ?? "") }, ...e.args]) : String(e.text ?? "");
        this.add(LOG_LEVEL[e.level] ?? "info", text, e.timestamp, e, e.source === "network" ? "network" : "browser");
        return;
      }
    }
  }
}
