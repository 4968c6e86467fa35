/** `bsk version` (and `--version`): bsk's version and protocol version. */
import { APP_VERSION, PROTOCOL_VERSION } from "../../protocol/version.ts";
import type { Outcome } from "../output.ts";

export async function version(): Promise<Outcome> {
  return { ok: true, format: "version", result: { version: APP_VERSION, protocol_version: PROTOCOL_VERSION } };
}
