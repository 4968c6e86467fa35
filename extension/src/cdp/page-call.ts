/** Calling a function in the page on a resolved element (bsk's isolated world), answered as one JSON string. */
import { BskError } from "../../../protocol/errors.ts";
import { sendTo } from "./debugger.ts";
import type { CdpTarget } from "./refs/target.ts";

interface CallReply {
  result?: { value?: unknown };
  exceptionDetails?: { text?: string; exception?: { description?: string } };
}

/**
 * Runs `fn` (source of a function, `this` = the element) with JSON-able args; the function returns a JSON string
 * (cheap to move, unlike an object graph) or a promise of one.
 */
export async function callOn<T>(
  target: { cdp: CdpTarget; objectId: string },
  fn: string,
  args: unknown[],
  signal?: AbortSignal,
): Promise<T> {
  return pageCall<T>(target.cdp, { objectId: target.objectId }, fn, args, signal);
}

/** callOn for a function run in a world (`executionContextId`) rather than on an element. */
export function callInWorld<T>(cdp: CdpTarget, contextId: number, fn: string, args: unknown[], signal?: AbortSignal): Promise<T> {
  return pageCall<T>(cdp, { executionContextId: contextId }, fn, args, signal);
}

async function pageCall<T>(
  cdp: CdpTarget,
  on: { objectId: string } | { executionContextId: number },
  fn: string,
  args: unknown[],
  signal?: AbortSignal,
): Promise<T> {
  const r = await sendTo<CallReply>(
    cdp,
    "Runtime.callFunctionOn",
    { ...on, functionDeclaration: fn, arguments: args.map((value) => ({ value })), returnByValue: true, awaitPromise: true },
    signal,
  );
  if (r.exceptionDetails) {
    const why = r.exceptionDetails.exception?.description ?? r.exceptionDetails.text ?? "an exception";
    throw new BskError("cdp_failed", `bsk's page code failed: ${why.split("\n")[0]}`, {
      data: { reason: "page_call_failed", exception: why },
    });
  }
  const value = r.result?.value;
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}
