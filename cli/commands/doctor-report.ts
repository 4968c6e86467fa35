/** doctor's report: `--json` is `{ok, checks}`; the human form is one line per check with its mark and time. */
export interface Check {
  name: string;
  status: "ok" | "warn" | "fail";
  ms: number;
  detail: string;
  hint?: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

const MARK = { ok: "✓", warn: "!", fail: "✗" } as const;

export function renderDoctor(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.name.length));
  const lines: string[] = [];
  for (const c of report.checks) {
    lines.push(`${MARK[c.status]} ${c.name.padEnd(width)} ${`${c.ms} ms`.padStart(8)}  ${c.detail}`);
    if (c.hint && c.status !== "ok") lines.push(`  hint: ${c.hint}`);
  }
  const failed = report.checks.filter((c) => c.status === "fail").length;
  const warned = report.checks.filter((c) => c.status === "warn").length;
  lines.push(failed ? `${failed} failed${warned ? `, ${warned} warning(s)` : ""}` : `all good${warned ? ` (${warned} warning(s))` : ""}`);
  return lines.join("\n");
}
