import { describe, expect, test } from "bun:test";
import { checkUpgrade, isLoopbackAddress } from "../../daemon/gateway-policy.ts";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";

describe("isLoopbackAddress", () => {
  test("accepts IPv4 127/8, ::1 and IPv4-mapped loopback", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"]) expect(isLoopbackAddress(a)).toBe(true);
  });

  test("refuses everything else, including private ranges and malformed addresses", () => {
    for (const a of [
      "10.0.0.1",
      "192.168.1.10",
      "172.16.0.1",
      "1.2.3.4",
      "::ffff:10.0.0.1",
      "fe80::1",
      "127.0.0.256",
      "127.0.0",
      "",
      null,
      undefined,
    ]) {
      expect(isLoopbackAddress(a)).toBe(false);
    }
  });
});

describe("checkUpgrade", () => {
  const ok = {
    url: "http://127.0.0.1:52800/extension",
    peer: "127.0.0.1",
    origin: `chrome-extension://${EXTENSION_ID}`,
    isAllowed: (id: string) => id === EXTENSION_ID,
  };

  test("allows a loopback peer on /extension with an allowed extension origin", () => {
    expect(checkUpgrade(ok)).toEqual({ ok: true, extensionId: EXTENSION_ID });
  });

  test("refuses other paths (404), query strings, remote peers, bad or unknown origins (403)", () => {
    expect(checkUpgrade({ ...ok, url: "http://127.0.0.1:52800/" })).toMatchObject({ ok: false, status: 404 });
    expect(checkUpgrade({ ...ok, url: "http://127.0.0.1:52800/extension/" })).toMatchObject({ ok: false, status: 404 });
    expect(checkUpgrade({ ...ok, url: "http://127.0.0.1:52800/extension?x=1" })).toMatchObject({ ok: false, status: 403 });
    expect(checkUpgrade({ ...ok, url: "http://127.0.0.1:52800/extension?" })).toMatchObject({ ok: false, status: 403 });
    expect(checkUpgrade({ ...ok, peer: "192.168.1.5" })).toMatchObject({ ok: false, status: 403 });
    expect(checkUpgrade({ ...ok, peer: undefined })).toMatchObject({ ok: false, status: 403 });
    expect(checkUpgrade({ ...ok, origin: null })).toMatchObject({ ok: false, status: 403 });
    expect(checkUpgrade({ ...ok, origin: "https://example.com" })).toMatchObject({ ok: false, status: 403 });
    expect(checkUpgrade({ ...ok, origin: `chrome-extension://${EXTENSION_ID}/` })).toMatchObject({ ok: false, status: 403 });
    const other = "abcdefghijklmnopabcdefghijklmnop";
    const refused = checkUpgrade({ ...ok, origin: `chrome-extension://${other}` });
    expect(refused).toMatchObject({ ok: false, status: 403 });
    expect(!refused.ok && refused.reason).toContain("allow-extension");
  });
});
