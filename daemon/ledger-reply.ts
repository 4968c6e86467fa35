/**
 * What the ledger keeps of a mutation's reply, to answer a repeated op id with it: errors whole; results whole up to
 * 16 KiB (a bigger one, e.g. a large evaluate value, is replaced by its size). Values typed into fields never reach
 * the disk: every string holding one of the call's secret params (the catalog's `redact`: fill's value, type's text)
 * is masked, and so is a read-back of the field (`actual`), which may hold part of it.
 */
import type { ErrorBody } from "../protocol/errors.ts";

export const STORED_RESULT_BYTES = 16 * 1024;
export const MASK = "[redacted]";
/** Result keys that echo what a field holds after a secret was typed into it. */
const ECHO_KEYS = new Set(["actual"]);

type Reply = { result: unknown } | { error: ErrorBody };

export function storedReply(reply: Reply, params: Record<string, unknown>, redactKeys: readonly string[] = []): Reply {
  const secrets = redactKeys.map((k) => params[k]).filter((v): v is string => typeof v === "string" && v.length > 0);
  const masked = secrets.length ? (mask(reply, secrets) as Reply) : reply;
  if (!("result" in masked)) return masked;
  const bytes = Buffer.byteLength(JSON.stringify(masked.result) ?? "null");
  if (bytes <= STORED_RESULT_BYTES) return masked;
  return { result: { result_not_kept: true, bytes } };
}

function mask(value: unknown, secrets: string[], key?: string): unknown {
  if (typeof value === "string") return ECHO_KEYS.has(key ?? "") || secrets.some((s) => value.includes(s)) ? MASK : value;
  if (Array.isArray(value)) return value.map((v) => mask(v, secrets));
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = mask(v, secrets, k);
  return out;
}
