/** Every call has a deadline; a method that waits for a person or a long job extends it to cover that wait. */
import type { MethodDef } from "../protocol/define.ts";

export const DEFAULT_TIMEOUT_MS = 30_000;
/** Slack beyond a method's own wait, so its own timeout answers before the daemon's does. */
export const WAIT_SLACK_MS = 5_000;

export function callBudgetMs(def: Pick<MethodDef, "waitParam">, params: unknown, timeoutMs?: number): number {
  const base = timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!def.waitParam || !params || typeof params !== "object") return base;
  const wait = (params as Record<string, unknown>)[def.waitParam];
  if (typeof wait === "number" && Number.isFinite(wait) && wait > base) return wait + WAIT_SLACK_MS;
  return base;
}
