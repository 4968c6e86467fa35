/** Tree → lines: `role "name" @eN [facts]`, two spaces per level; static text as a quoted string. */
import { quote } from "./facts.ts";
import type { SNode } from "./walk.ts";

/** [depth, text, in viewport (1/0), iframe index or -1] */
export type Line = [number, string, number, number];

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

export function emit(nodes: SNode[]): Line[] {
  const out: Line[] = [];
  write(
    nodes.map(simplify).filter((n): n is SNode => n !== null),
    0,
    out,
  );
  return out;
}

function write(nodes: SNode[], depth: number, out: Line[]): void {
  for (const n of nodes) {
    out.push([depth, lineOf(n), n.vis ? 1 : 0, n.frame ?? -1]);
    write(n.children, depth + 1, out);
  }
}
