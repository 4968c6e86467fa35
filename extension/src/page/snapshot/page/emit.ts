/** Tree → lines: `role "name" @eN [facts]`, two spaces per level; static text as a quoted string. */
import { quote } from "./facts.ts";
import type { SNode } from "./walk.ts";

/** [depth, text, in viewport (1/0), iframe index or -1, the line as it reads alone when the tree made its label unneeded] */
export type Line = [number, string, number, number, string?];

const SHORT_TEXT = 80;

export function lineOf(n: SNode): string {
  if (n.role === "text") return quote(n.name);
  let s = n.role;
  if (n.name) s += ` ${quote(n.name)}`;
  if (n.size) s += ` ${n.size}`;
  if (n.ref !== undefined) s += ` @e${n.ref}`;
  if (n.facts.length) s += ` [${n.facts.join(", ")}]`;
  return s;
}

/** Folds what adds no information: a lone short text into its unnamed parent, empty unnamed structure. */
function simplify(n: SNode): SNode | null {
  n.children = n.children.map(simplify).filter((c): c is SNode => c !== null);
  if (n.role === "text") return n;
  // A container counts as in the viewport when anything in it is, so it is listed with its visible content.
  if (n.children.some((c) => c.vis)) n.vis = true;
  // A dialog titled by its heading, a group by its text: said once, on the parent.
  n.children = n.children.filter(
    (c) => !(c.name === n.name && c.ref === undefined && c.children.length === 0 && (c.role === "text" || c.role === "heading")),
  );
  const lone = n.children.length === 1 ? n.children[0]! : null;
  if (!n.name && n.ref === undefined && lone?.role === "text" && lone.name.length <= SHORT_TEXT && n.frame === undefined) {
    n.name = lone.name;
    n.children = [];
  }
  if (!n.name && n.ref === undefined && n.frame === undefined && n.children.length === 0 && n.facts.length === 0) return null;
  return n;
}

/** What a line says of its node without its ref and facts: `row "Li Si"`. */
const kindOf = (n: SNode) => lineOf({ ...n, ref: undefined, facts: [] });

const LABEL = /^(in: |nth=\d+$)/;

/**
 * A namesake (context.ts) whose parent line reads unlike every other namesake's parent line is already told apart
 * by the tree: its `in:`/`nth=` label is left off the snapshot and kept on the line as it reads alone (find, --diff).
 */
function untangle(roots: SNode[]): void {
  const parent = new Map<SNode, SNode>();
  const groups = new Set<SNode[]>();
  const visit = (n: SNode) => {
    if (n.namesakes) groups.add(n.namesakes);
    for (const c of n.children) {
      parent.set(c, n);
      visit(c);
    }
  };
  roots.forEach(visit);
  for (const group of groups) {
    const above = group.map((m) => {
      const p = parent.get(m);
      return p ? kindOf(p) : null;
    });
    group.forEach((m, i) => {
      const p = above[i];
      if (p === null || above.some((q, j) => j !== i && q === p)) return;
      m.alone = lineOf(m);
      m.facts = m.facts.filter((f) => !LABEL.test(f));
    });
  }
}

export function emit(nodes: SNode[]): Line[] {
  const out: Line[] = [];
  const roots = nodes.map(simplify).filter((n): n is SNode => n !== null);
  untangle(roots);
  write(roots, 0, out);
  return out;
}

function write(nodes: SNode[], depth: number, out: Line[]): void {
  for (const n of nodes) {
    const line: Line = [depth, lineOf(n), n.vis ? 1 : 0, n.frame ?? -1];
    if (n.alone) line.push(n.alone);
    out.push(line);
    write(n.children, depth + 1, out);
  }
}
