/** How a device that may not connect is refused, on the link and at authorize alike. */
import { BskError } from "../../protocol/errors.ts";

export function notPaired(deviceId: string): BskError {
  return new BskError("permission_denied", `device ${deviceId} is not paired with this server (revoked, or its credential is stale)`, {
    hint: "Pair it again: on the server run bsk daemon pair and paste the link in the extension's popup.",
    data: { reason: "device_not_paired", device_id: deviceId },
  });
}

export function grantExpired(deviceId: string): BskError {
  return new BskError("permission_denied", `device ${deviceId}'s grant has expired`, {
    hint: "Pair it again: on the server run bsk daemon pair and paste the link in the extension's popup.",
    data: { reason: "grant_expired", device_id: deviceId },
  });
}
