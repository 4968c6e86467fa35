/**
 * A wait of the worker's own (not a chrome.* call) told to `npm run bench -- --hops` (scripts/bench/hops.ts), which
 * sets `globalThis.__bskHops` over the DevTools socket while it measures; otherwise nothing is recorded.
 */
type Hops = { __bskHops?: [string, number, number][]; __bskHopsT0?: number };

/** Records `what`, begun at `startedAt` (performance.now()) and ended now, when the hops bench listens. */
export function hopMark(what: string, startedAt: number): void {
  const g = globalThis as Hops;
  if (g.__bskHops && g.__bskHopsT0 !== undefined) g.__bskHops.push([what, startedAt - g.__bskHopsT0, performance.now() - startedAt]);
}
