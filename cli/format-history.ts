/**
 * Human output of `ops` and `events`, part of output.ts: one entry per line, grep-friendly, cursors and counts on
 * stderr so stdout stays one entry per line. `eventLine` also prints each event streamed by `events --follow`.
 */
import type { MethodFormatters } from "./format-page.ts";

/** `2030-01-01T10:00:00.123Z` → `10:00:00.123` (the date is in --json). */
const clock = (iso: unknown) => (typeof iso === "string" ? iso.slice(11, 23) : "");

/** `<op_id>  <state>  <method>  session <id>  <time>  (<reason>)` */
export function opLine(o: any): string {
  const reason = o.reason ? `  (${o.reason})` : "";
  const session = o.session_id ? `  session ${o.session_id}` : "";
  return `${o.op_id}  ${String(o.state).padEnd(12)}  ${o.method}${session}  ${o.settled_at ?? o.reserved_at}${reason}`;
}

const SHOWN_KEYS = ["tab_id", "url", "cause", "text", "status", "error", "method", "reason", "type", "message", "code", "op_id"];

/** A few telling fields of an event's data, `key=value`, strings quoted. */
function dataText(data: Record<string, unknown>): string {
  const keys = [...SHOWN_KEYS.filter((k) => k in data), ...Object.keys(data).filter((k) => !SHOWN_KEYS.includes(k))].slice(0, 6);
  return keys
    .map((k) => {
      const v = data[k];
      const text = typeof v === "string" ? JSON.stringify(v.length > 200 ? `${v.slice(0, 200)}…` : v) : JSON.stringify(v);
      return `${k}=${text}`;
    })
    .join(" ");
}

/** `<seq>  <time>  <event> ×<count>  key=value …` */
export function eventLine(e: any): string {
  const count = e.count > 1 ? ` ×${e.count}` : "";
  return `${e.seq}  ${clock(e.ts)}  ${e.event}${count}  ${dataText(e.data ?? {})}`.trimEnd();
}

export const HISTORY_FORMATTERS: MethodFormatters = {
  ops: (r) => {
    const lines = (r.ops ?? []).map(opLine);
    const more = r.total > lines.length ? `-- ${r.total - lines.length} older ops (--limit)` : undefined;
    return { stdout: lines.join("\n"), stderr: lines.length ? more : "no ops" };
  },
  events: (r) => {
    const lines = (r.events ?? []).map(eventLine);
    const notes = [`-- next: --since ${r.next_since}`];
    if (r.dropped) notes.push(`-- ${r.dropped} earlier events are no longer kept`);
    if (r.ended) notes.push("-- the session has ended");
    return { stdout: lines.join("\n"), stderr: notes.join("\n") };
  },
};
