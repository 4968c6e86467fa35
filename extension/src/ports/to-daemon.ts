/**
 * The extension's own requests to the daemon (the transfer methods; system.file_url, always to the local one), typed by the catalog like the handlers of the
 * daemon's requests are. A request goes to the daemon that owns its session: link/connection.ts plugs in the local
 * link once its daemon has proven itself and taken the handshake (and unplugs it when the link drops, like outbox's
 * setSink); link/remote/ installs a router that names the remote link for a remote agent's session. Without the
 * owner's link a call fails `daemon_link_down` — it never goes to another daemon.
 */
import type { MethodName, Params, Result } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";

/** Sends one request on the live link and resolves with its result; throws the daemon's error. */
export type DaemonLink = (method: MethodName, params: unknown, timeoutMs: number, signal?: AbortSignal) => Promise<unknown>;

/**
 * For a session another link owns: that link (null while it is down); undefined means the session is the local
 * daemon's.
 */
export type LinkRouter = (sessionId: string) => DaemonLink | null | undefined;

const toDaemon: { local: DaemonLink | null; router: LinkRouter | null } = { local: null, router: null };

export function setDaemonLink(next: DaemonLink | null): void {
  toDaemon.local = next;
}

export function setLinkRouter(next: LinkRouter | null): void {
  toDaemon.router = next;
}

function linkFor(params: unknown): DaemonLink | null {
  const sessionId = (params as { session_id?: unknown } | null)?.session_id;
  const routed = toDaemon.router && typeof sessionId === "string" ? toDaemon.router(sessionId) : undefined;
  return routed === undefined ? toDaemon.local : routed;
}

/** One request to the daemon; the reply is the daemon's answer to `method`, so its result is `Result<M>`. */
export async function call<M extends MethodName>(
  method: M,
  params: Params<M>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Result<M>> {
  const link = linkFor(params);
  if (!link) throw linkDown(method);
  return (await link(method, params, timeoutMs, signal)) as Result<M>;
}

export function linkDown(method: string): BskError {
  return new BskError("cdp_failed", `cannot send ${method}: the link to the daemon is down`, { data: { reason: "daemon_link_down" } });
}
