/**
 * The extension's own requests to the daemon (the transfer methods), typed by the catalog like the handlers of the
 * daemon's requests are. link/connection.ts plugs in the live link once the daemon has proven itself and taken the
 * handshake, and unplugs it when the link drops (like outbox's setSink); without it a call fails `daemon_link_down`.
 */
import type { MethodName, Params, Result } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";

/** Sends one request on the live link and resolves with its result; throws the daemon's error. */
export type DaemonLink = (method: MethodName, params: unknown, timeoutMs: number, signal?: AbortSignal) => Promise<unknown>;

let link: DaemonLink | null = null;

export function setDaemonLink(next: DaemonLink | null): void {
  link = next;
}

/** One request to the daemon; the reply is the daemon's answer to `method`, so its result is `Result<M>`. */
export async function call<M extends MethodName>(
  method: M,
  params: Params<M>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Result<M>> {
  if (!link) throw linkDown(method);
  return (await link(method, params, timeoutMs, signal)) as Result<M>;
}

export function linkDown(method: string): BskError {
  return new BskError("cdp_failed", `cannot send ${method}: the link to the daemon is down`, { data: { reason: "daemon_link_down" } });
}
