/**
 * The refusal of an extension whose protocol major differs from the daemon's, telling the person which side to
 * update and how: an older extension is reloaded from this release's extension zip, an older bsk is updated.
 */
import { BskError } from "./errors.ts";
import { APP_VERSION, parseProtocolVersion, PROTOCOL_VERSION } from "./version.ts";

export function versionRefusal(extensionProtocol: string): BskError {
  const ours = parseProtocolVersion(PROTOCOL_VERSION)?.major ?? 0;
  const theirs = parseProtocolVersion(extensionProtocol)?.major;
  const extensionOlder = theirs === undefined || theirs < ours;
  const message = `extension protocol ${extensionProtocol} cannot talk to daemon protocol ${PROTOCOL_VERSION} (bsk ${APP_VERSION})`;
  const data = {
    reason: extensionOlder ? "extension_too_old" : "daemon_too_old",
    daemon_protocol: PROTOCOL_VERSION,
    extension_protocol: extensionProtocol,
    daemon_version: APP_VERSION,
  };
  if (!extensionOlder) return new BskError("version_too_old", message, { data });
  return new BskError("version_too_old", message, {
    hint: `Update the extension to bsk ${APP_VERSION}: unzip bsk-extension-${APP_VERSION}.zip from that release over the unpacked extension's folder, then click reload on chrome://extensions.`,
    data,
  });
}
