/** `bsk find`: lines of the last snapshot matching text (case-insensitive) or /regex/flags. */
import { BskError } from "../../../../protocol/errors.ts";

export interface FindMatch {
  line: string;
  ref: string | null;
}

export function matcher(query: string): (line: string) => boolean {
  const re = /^\/(.+)\/([a-z]*)$/s.exec(query);
  if (re) {
    let rx: RegExp;
    try {
      rx = new RegExp(re[1]!, re[2]!.replace(/[gy]/g, ""));
    } catch (err) {
      throw new BskError("invalid_params", `bad regular expression ${query}: ${err instanceof Error ? err.message : String(err)}`, {
        data: { reason: "invalid_regex" },
      });
    }
    return (line) => rx.test(line);
  }
  const needle = query.toLowerCase();
  return (line) => line.toLowerCase().includes(needle);
}

/** Matches against each line without its indentation; the line is returned trimmed with its ref. */
export function findLines(lines: readonly string[], query: string, limit: number): { matches: FindMatch[]; total: number } {
  const test = matcher(query);
  const matches: FindMatch[] = [];
  let total = 0;
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith("#") || !test(line)) continue;
    total++;
    if (matches.length < limit) matches.push({ line, ref: /@e\d+/.exec(line)?.[0] ?? null });
  }
  return { matches, total };
}
