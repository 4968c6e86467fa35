/**
 * First dispatch stages: is the method one a client may call, and do its params fit its schema?
 * Schemas are built once per method, on first use.
 */
import type { z } from "zod";
import { isMethodName, METHODS, type MethodName } from "../protocol/catalog.ts";
import type { MethodDef } from "../protocol/define.ts";
import { BskError } from "../protocol/errors.ts";
import { APP_VERSION } from "../protocol/version.ts";
import { rangeAt, rangeText } from "./param-range.ts";

/** Not the extension's link methods, nor the daemon's own calls into the extension (session.open, record.begin, …). */
export function isClientCallable(name: MethodName): boolean {
  const { callers, owner } = METHODS[name];
  return callers !== "link" && !(callers === "wire" && owner === "extension");
}

export function resolveMethod(name: string): { name: MethodName; def: MethodDef } {
  if (!isMethodName(name)) {
    throw new BskError("unknown_method", `unknown method ${JSON.stringify(name)}`, { data: { method: name } });
  }
  if (!isClientCallable(name)) {
    throw new BskError("unknown_method", `${name} is used only between the daemon and the extension`, {
      hint: "Use the bsk command for this (bsk --help).",
      data: { method: name, reason: "wire_only" },
    });
  }
  return { name, def: METHODS[name] as MethodDef };
}

const schemas = new Map<string, z.ZodType>();

export function paramsSchema(name: MethodName): z.ZodType {
  let s = schemas.get(name);
  if (!s) {
    s = (METHODS[name] as MethodDef).params();
    schemas.set(name, s);
  }
  return s;
}

/** The top-level keys a closed object schema does not list (none for other schemas, or an open object's). */
function unknownKeys(schema: z.ZodType, params: unknown): string[] {
  const { shape, def } = schema as unknown as { shape?: Record<string, unknown>; def?: { type?: string; catchall?: unknown } };
  if (def?.type !== "object" || !shape || def.catchall || !params || typeof params !== "object") return [];
  return Object.keys(params).filter((k) => !Object.hasOwn(shape, k));
}

/**
 * Validated params with defaults applied, or invalid_params naming the first issue's path (and a number's range).
 * A key the method does not take is refused, never dropped: a newer client's safety flag (`--confirm-writes`) sent to
 * an older daemon must not run as if it were not there.
 */
export function parseParams(name: MethodName, params: unknown): Record<string, unknown> {
  const schema = paramsSchema(name);
  const unknown = unknownKeys(schema, params);
  if (unknown.length) {
    const list = unknown.join(", ");
    throw new BskError("invalid_params", `${name}: params: does not take ${list}`, {
      hint: `Leave out ${list}. If your bsk is newer than this daemon (bsk ${APP_VERSION}), restart the daemon: bsk daemon stop.`,
      data: { method: name, path: unknown[0], params: unknown, daemon_version: APP_VERSION },
    });
  }
  const r = schema.safeParse(params ?? {});
  if (r.success) return r.data as Record<string, unknown>;
  const issue = r.error.issues[0];
  const path = issue?.path.length ? issue.path.join(".") : "";
  const where = path ? `params.${path}` : "params";
  const range = issue && (issue.code === "too_big" || issue.code === "too_small") ? rangeAt(schema, issue.path) : null;
  const allowed = range ? rangeText(range, String(issue!.path.at(-1) ?? "")) : "";
  const message = range ? `must be ${allowed}` : (issue?.message ?? "invalid");
  throw new BskError("invalid_params", `${name}: ${where}: ${message}`, {
    ...(range && { hint: `Give ${path} a value ${allowed}.` }),
    data: {
      method: name,
      ...(path && { path }),
      ...(range && { range }),
      issues: r.error.issues.slice(0, 5).map((i) => ({ path: i.path.join("."), message: i.message })),
    },
  });
}

/** Methods whose schema is built and whose parser zod has compiled (warmSchemas). */
const warmed = new Set<MethodName>();

/**
 * Builds client-callable methods' schemas and has zod compile their parsers (an object schema's parser is generated
 * with `new Function` on its first parse, whatever the input), so no call pays for either: at most `limit` methods,
 * and says whether any is left. Start-up work (daemon/warm-up.ts), done in slices before the daemon says ready.
 */
export function warmSchemas(limit = Number.POSITIVE_INFINITY): boolean {
  let built = 0;
  for (const name of Object.keys(METHODS) as MethodName[]) {
    if (!isClientCallable(name) || warmed.has(name)) continue;
    if (built++ >= limit) return true;
    paramsSchema(name).safeParse({});
    warmed.add(name);
  }
  return false;
}

/** The client-callable methods a call would still build or compile a schema for. */
export function unwarmedMethods(): MethodName[] {
  return (Object.keys(METHODS) as MethodName[]).filter((n) => isClientCallable(n) && !warmed.has(n));
}

/** Tests only: as in a fresh process, no schema built yet. */
export function forgetSchemas(): void {
  schemas.clear();
  warmed.clear();
}
