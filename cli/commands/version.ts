/** `bsk version` (and `--version`): bsk's version and protocol version. No imports but the versions: main.ts answers with it before anything else loads. */
import { APP_VERSION, PROTOCOL_VERSION } from "../../protocol/version.ts";

export interface VersionResult {
  version: string;
  protocol_version: string;
}

export function version() {
  const result: VersionResult = { version: APP_VERSION, protocol_version: PROTOCOL_VERSION };
  return { ok: true as const, format: "version", result };
}

/** The human line (output.ts's `version` formatter, and main.ts's answer). */
export function versionLine(r: VersionResult): string {
  return `bsk ${r.version} (protocol ${r.protocol_version})`;
}
