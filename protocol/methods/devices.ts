/** Remote browsers a server-mode daemon has paired (daemon/remote/): list them, revoke them. */
import { z } from "zod";
import { method } from "../define.ts";

export const DeviceInfo = () =>
  z.object({
    device_id: z.string(),
    label: z.string(),
    browser: z.object({ name: z.string(), version: z.string() }),
    created_at: z.string(),
    last_seen_at: z.string().nullable(),
    expires_at: z.string(),
    /** The device secret's generation: 1 at pairing, one more at each renewal (each renewal rotates the secret). */
    generation: z.number().int(),
    /** Linked to this daemon right now. */
    connected: z.boolean(),
  });

export const deviceMethods = {
  "devices.list": method({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "person",
    readsOnly: true,
    scope: "none",
    description: "Devices paired with this server (remote mode): id, label, browser, created, last seen, expiry; never a credential.",
    params: () => z.object({}),
    result: () => z.object({ server_mode: z.boolean(), devices: z.array(DeviceInfo()) }),
    cli: { words: ["daemon", "devices"], examples: ["bsk daemon devices"] },
  }),

  "devices.revoke": method({
    owner: "daemon",
    effect: "ControlPlane",
    callers: "person",
    scope: "none",
    description: "Revoke a paired device (or every one): its live link closes within a second and it is refused from then on.",
    params: () =>
      z.object({
        device_id: z.string().min(1).max(64).optional().describe("The device to revoke (bsk daemon devices)"),
        all: z.boolean().default(false).describe("Revoke every paired device"),
      }),
    result: () => z.object({ revoked: z.array(z.string()), closed_links: z.number().int() }),
    cli: {
      words: ["daemon", "revoke"],
      positionals: [{ param: "device_id", description: "Device id (bsk daemon devices)" }],
      flags: { all: {} },
      examples: ["bsk daemon revoke dev_3f9a1c2b4d5e6f70", "bsk daemon revoke --all"],
    },
  }),
};
