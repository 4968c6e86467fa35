/** Line diff of two snapshots (LCS over the middle that differs), printed as `+ `/`- ` lines with one context line per hunk. */

export interface DiffResult {
  lines: string[];
  added: number;
  removed: number;
}

/** Longest common subsequence table is O(n·m): beyond this the middle is compared as multisets. */
const LCS_CELLS = 4_000_000;

type Op = ["=" | "+" | "-", string, number];

function ops(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: Op[] = [];
  for (let i = 0; i < start; i++) out.push(["=", a[i]!, i]);
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length * midB.length <= LCS_CELLS) out.push(...lcsOps(midA, midB, start));
  else out.push(...bagOps(midA, midB, start));
  for (let i = endB; i < b.length; i++) out.push(["=", b[i]!, i]);
  return out;
}

function lcsOps(a: string[], b: string[], base: number): Op[] {
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const t = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      t[i * w + j] = a[i] === b[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
    }
  }
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(["=", b[j]!, base + j]);
      i++;
      j++;
    } else if (i < n && (j === m || t[(i + 1) * w + j]! >= t[i * w + j + 1]!)) {
      // Removals before additions: a changed line reads as "- old" then "+ new".
      out.push(["-", a[i]!, -1]);
      i++;
    } else {
      out.push(["+", b[j]!, base + j]);
      j++;
    }
  }
  return out;
}

function bagOps(a: string[], b: string[], base: number): Op[] {
  const count = new Map<string, number>();
  for (const l of a) count.set(l, (count.get(l) ?? 0) + 1);
  const out: Op[] = [];
  b.forEach((l, j) => {
    const c = count.get(l) ?? 0;
    if (c > 0) {
      count.set(l, c - 1);
      out.push(["=", l, base + j]);
    } else out.push(["+", l, base + j]);
  });
  for (const [l, c] of count) for (let k = 0; k < c; k++) out.push(["-", l, -1]);
  return out;
}

const depthOf = (line: string) => line.length - line.trimStart().length;

/** What changed from `before` to `after`; each hunk is preceded by its nearest enclosing line for context. */
export function diffLines(before: string[], after: string[]): DiffResult {
  const script = ops(before, after);
  const lines: string[] = [];
  let added = 0;
  let removed = 0;
  let lastContext = -1;
  script.forEach((op, k) => {
    if (op[0] === "=") return;
    const startsHunk = k === 0 || script[k - 1]![0] === "=";
    if (startsHunk) {
      // The closest earlier unchanged line that is less indented: where the change sits.
      const d = depthOf(op[1]);
      for (let q = k - 1; q >= 0; q--) {
        const prev = script[q]!;
        if (prev[0] === "=" && depthOf(prev[1]) < d) {
          if (prev[2] !== lastContext) {
            lines.push(`  ${prev[1]}`);
            lastContext = prev[2];
          }
          break;
        }
      }
    }
    lines.push(`${op[0]} ${op[1]}`);
    if (op[0] === "+") added++;
    else removed++;
  });
  return { lines, added, removed };
}
