/** A daemon log line (a JSON object) as a person reads it: `2026-12-01 22:54:05.740 warn  msg key=value …`. */
export function readableLogLine(line: string): string {
  if (!line.startsWith("{")) return line;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { ts, level, msg, ...rest } = entry;
  const when = typeof ts === "string" ? ts.replace("T", " ").replace(/Z$/, "") : "";
  const fields = Object.entries(rest).map(([k, v]) => `${k}=${value(v)}`);
  return [when, level === undefined ? "" : String(level).padEnd(5), String(msg ?? ""), ...fields].filter(Boolean).join(" ");
}

function value(v: unknown): string {
  if (typeof v === "string") return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}
