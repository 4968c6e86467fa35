/**
 * Which tabs' pages can reach each other, as a pure graph (no chrome.* here, so bun test can import it).
 *
 * A page that opens another (window.open, a link with a target) shares its browsing context group with it: each
 * can reach the other through `window.opener`, a named-window lookup (`window.open('', name)`) or a reference it
 * kept, also after the opener closed (its other children still find each other by name). A lent tab's script
 * could read and click in every tab of that group, so borrowing goes by group. The browser does not say whether
 * an opened tab was cut loose (`noopener`, or `opener = null` later: a named lookup still works then), so every
 * "opened by" counts.
 */

/** `[opener tab id, opened tab id]`. */
export type Edge = readonly [opener: number, child: number];

/** The live tabs in `tabId`'s group, `tabId` left out (closed tabs still join the tabs they opened). */
export function linkedTo(edges: readonly Edge[], tabId: number, live: Pick<ReadonlySet<number>, "has">): number[] {
  const seen = new Set<number>([tabId]);
  const todo = [tabId];
  while (todo.length) {
    const at = todo.pop()!;
    for (const [a, b] of edges) {
      const next = a === at ? b : b === at ? a : undefined;
      if (next === undefined || seen.has(next)) continue;
      seen.add(next);
      todo.push(next);
    }
  }
  return [...seen].filter((id) => id !== tabId && live.has(id)).sort((a, b) => a - b);
}

/** The edges still worth keeping: a group with at most one live tab can link nothing any more. */
export function prune(edges: readonly Edge[], live: Pick<ReadonlySet<number>, "has">): Edge[] {
  const keep = new Set<Edge>();
  for (const e of edges) {
    if (keep.has(e)) continue;
    const group = groupOf(edges, e[0]);
    const liveCount = [...group.nodes].filter((id) => live.has(id)).length;
    if (liveCount >= 2) for (const g of group.edges) keep.add(g);
  }
  return edges.filter((e) => keep.has(e));
}

/** A tab the browser swapped for another (prerender, instant pages) keeps its links under the new id. */
export function renamed(edges: readonly Edge[], from: number, to: number): Edge[] {
  return edges.map(([a, b]) => [a === from ? to : a, b === from ? to : b] as const);
}

function groupOf(edges: readonly Edge[], start: number): { nodes: Set<number>; edges: Set<Edge> } {
  const nodes = new Set<number>([start]);
  const inGroup = new Set<Edge>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const e of edges) {
      if (inGroup.has(e) || !(nodes.has(e[0]) || nodes.has(e[1]))) continue;
      inGroup.add(e);
      nodes.add(e[0]);
      nodes.add(e[1]);
      grew = true;
    }
  }
  return { nodes, edges: inGroup };
}
