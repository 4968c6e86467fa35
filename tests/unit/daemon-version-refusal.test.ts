import { expect, test } from "bun:test";
import { versionRefusal } from "../../protocol/version-refusal.ts";
import { hintFor } from "../../protocol/errors.ts";
import { APP_VERSION, parseProtocolVersion, PROTOCOL_VERSION } from "../../protocol/version.ts";

const major = parseProtocolVersion(PROTOCOL_VERSION)!.major;

test("an older extension is told to reload the extension zip of this bsk's release", () => {
  const e = versionRefusal(`${major - 1}.3`);
  expect(e.code).toBe("version_too_old");
  expect(e.data).toMatchObject({ reason: "extension_too_old", daemon_version: APP_VERSION, extension_protocol: `${major - 1}.3` });
  expect(e.hint).toContain(`bsk-extension-${APP_VERSION}.zip`);
  expect(e.hint).toContain("reload on chrome://extensions");
});

test("a newer extension is told to update bsk", () => {
  const e = versionRefusal(`${major + 1}.0`);
  expect(e.data?.reason).toBe("daemon_too_old");
  expect(e.hint).toBe(hintFor("version_too_old", "daemon_too_old"));
  expect(e.hint).toContain("bsk update");
});
