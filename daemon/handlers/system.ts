/** Daemon-answered system methods: status, browsers, shutdown, the extension allow-list, cancel. */
import { formatPairingLink } from "../../protocol/remote.ts";
import type { Result } from "../../protocol/catalog.ts";
import { formatCode } from "../../protocol/trust.ts";
import { registerNativeHost } from "../../shared/native-host-register.ts";
import { PROTOCOL_VERSION } from "../../protocol/version.ts";
import { startBrowser } from "../browser-launch.ts";
import { cancelledError } from "../call.ts";
import type { DaemonContext } from "../context.ts";
import type { DaemonHandler } from "./types.ts";

export function browserInfos(ctx: DaemonContext): Result<"browser.list">["browsers"] {
  return ctx.browsers.list().map((c) => ({ ...c.record, sessions: ctx.sessions.liveOn(c.instanceId).length }));
}

const status: DaemonHandler<"system.status"> = async ({ ctx }) => {
  const { info, config } = ctx;
  const result: Result<"system.status"> = {
    daemon: {
      pid: info.pid,
      version: info.version,
      protocol_version: PROTOCOL_VERSION,
      started_at: info.started_at,
      uptime_ms: Date.now() - Date.parse(info.started_at),
      home: config.paths.home,
      socket: info.socket,
      ...(info.cli_port !== undefined && { cli_port: info.cli_port }),
      ws_port: info.ws_port,
      key_id: ctx.trust.secret.keyId,
    },
    browsers: browserInfos(ctx),
    sessions: ctx.sessions.liveRecords(),
  };
  return result;
};

const browserList: DaemonHandler<"browser.list"> = async ({ ctx }) => ({ browsers: browserInfos(ctx) });

const browserLaunch: DaemonHandler<"browser.launch"> = async ({ ctx }) => {
  const launched = startBrowser(ctx);
  ctx.log.info("browser launch", { ...launched });
  return launched satisfies Result<"browser.launch">;
};

const shutdown: DaemonHandler<"system.shutdown"> = async ({ call, ctx }) => {
  const ended = ctx.sessions.liveRecords().map((r) => r.session_id);
  call.afterReply = () => void ctx.shutdown("system.shutdown");
  return { pid: ctx.info.pid, ended_sessions: ended } satisfies Result<"system.shutdown">;
};

const allowExtension: DaemonHandler<"system.allow_extension"> = async ({ ctx, params: { extension_id } }) => {
  const allowed = ctx.allowList.add(extension_id);
  ctx.log.info("extension allowed", { extension_id });
  // The native messaging host answers only the ids its manifests list: list the new one where we registered it.
  if (ctx.config.nativeHost === "auto") {
    try {
      registerNativeHost({ paths: ctx.config.paths, mode: "auto", extensionIds: allowed });
    } catch (err) {
      ctx.log.warn("could not update the native messaging host", { error: err });
    }
  }
  return { allowed } satisfies Result<"system.allow_extension">;
};

/** A one-use code the person types into the popup; the extension trades it for the secret (trust/link-trust.ts).
 * In server mode, the pairing link: the public URL, the code and the server's key fingerprint. */
const pairingCode: DaemonHandler<"system.pairing_code"> = async ({ ctx }) => {
  const issued = ctx.trust.pairing.issue();
  ctx.log.info("pairing code issued", { expires_at: new Date(issued.expiresAt).toISOString() });
  return {
    code: formatCode(issued.code),
    expires_at: new Date(issued.expiresAt).toISOString(),
    expires_in_ms: Math.max(0, issued.expiresAt - Date.now()),
    ws_port: ctx.info.ws_port,
    // Server mode: the link the person pastes into the popup's Remote connection (the code rides in its fragment).
    ...(ctx.config.server && {
      link: formatPairingLink(ctx.config.server.publicUrl, issued.code, ctx.trust.secret.keyId),
      key_id: ctx.trust.secret.keyId,
    }),
  } satisfies Result<"system.pairing_code">;
};

/** Cancel a call in flight: a waiting call leaves its queue, a forwarded one is cancelled at the extension too. */
const cancel: DaemonHandler<"cancel"> = async ({ call, findCall, params: { id } }) => {
  const target = findCall(id);
  if (!target || target.signal.aborted) return { cancelled: false };
  target.abort(cancelledError(target.method, { cancelled_by: call.id }));
  return { cancelled: true } satisfies Result<"cancel">;
};

export const systemHandlers = {
  "system.status": status,
  "browser.list": browserList,
  "browser.launch": browserLaunch,
  "system.shutdown": shutdown,
  "system.allow_extension": allowExtension,
  "system.pairing_code": pairingCode,
  cancel,
};
