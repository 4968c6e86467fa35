/** Words other tools use for a bsk command: `bsk open` means `bsk navigate`. */
export const COMMAND_SYNONYMS: Readonly<Record<string, string>> = {
  open: "navigate",
  goto: "navigate",
  go: "navigate",
  visit: "navigate",
  load: "navigate",
  back: "navigate back",
  forward: "navigate forward",
  refresh: "reload",
  start: "session start",
  stop: "session stop",
  snap: "snapshot",
  shot: "screenshot",
  capture: "screenshot",
  eval: "evaluate",
  js: "evaluate",
  html: "get-html",
  key: "press",
  keypress: "press",
  sleep: "wait",
  scroll: "scroll-to",
};

/** "Did you mean" for unknown commands, flags and enum values. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = c.startsWith(word) || word.startsWith(c) ? Math.min(1, distance(word, c)) : distance(word, c);
    if (d < bestScore) {
      bestScore = d;
      best = c;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** Levenshtein distance (small strings only). */
export function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
