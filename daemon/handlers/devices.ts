/** `bsk daemon devices` and `bsk daemon revoke`: the devices a server-mode daemon has paired. */
import type { Result } from "../../protocol/catalog.ts";
import { BskError } from "../../protocol/errors.ts";
import type { DaemonContext } from "../context.ts";
import type { DaemonHandler } from "./types.ts";

/** The close code a revoked device's link gets (4000-4999 are the application's). */
export const REVOKED_CLOSE = 4008;

function connectedDevices(ctx: DaemonContext): Set<string> {
  return new Set(ctx.browsers.list().flatMap((c) => (c.record.device_id ? [c.record.device_id] : [])));
}

const list: DaemonHandler<"devices.list"> = async ({ ctx }) => {
  const store = ctx.trust.remote?.devices;
  const live = connectedDevices(ctx);
  const devices = (store?.list() ?? []).map((d) => ({
    device_id: d.device_id,
    label: d.label,
    browser: d.browser,
    created_at: d.created_at,
    last_seen_at: d.last_seen_at,
    expires_at: d.expires_at,
    generation: d.generation,
    connected: live.has(d.device_id),
  }));
  return { server_mode: store !== undefined, devices } satisfies Result<"devices.list">;
};

const revoke: DaemonHandler<"devices.revoke"> = async ({ ctx, params: p }) => {
  const store = ctx.trust.remote?.devices;
  if (!store) {
    throw new BskError("unsupported", "this daemon is not in server mode: it has no paired devices", {
      hint: "Devices are paired with a server: bsk daemon start --mode server … (docs/remote.md).",
    });
  }
  if (p.all === (p.device_id !== undefined)) {
    throw new BskError("invalid_params", "give a device id or --all (not both)", { hint: "List them with: bsk daemon devices." });
  }
  if (p.device_id !== undefined && !store.get(p.device_id)) {
    throw new BskError("not_found", `no paired device ${p.device_id}`, { hint: "List them with: bsk daemon devices." });
  }
  const revoked = store.revoke(p.all ? "all" : p.device_id!);
  const gone = new Set(revoked);
  let closed = 0;
  for (const conn of ctx.browsers.list()) {
    if (!conn.record.device_id || !gone.has(conn.record.device_id)) continue;
    conn.close(REVOKED_CLOSE, "device revoked");
    closed++;
  }
  ctx.log.info("devices revoked", { devices: revoked, closed_links: closed });
  return { revoked, closed_links: closed } satisfies Result<"devices.revoke">;
};

export const deviceHandlers = { "devices.list": list, "devices.revoke": revoke };
