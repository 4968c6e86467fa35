/** Who a server's request counts against: the first hop, or behind a trusted proxy the right-most untrusted entry. */
import { describe, expect, test } from "bun:test";
import { canonicalAddress, peerKey } from "../../daemon/remote/limits.ts";
import { peerOf } from "../../daemon/remote/remote-requests.ts";
import { resolveServerMode } from "../../daemon/remote/server-options.ts";

const req = (xff?: string) =>
  new Request("http://127.0.0.1/extension/authorize", { headers: xff === undefined ? {} : { "x-forwarded-for": xff } });
const behind = (...proxies: string[]) => ({ trustedProxies: proxies.map(canonicalAddress) });

describe("peerOf", () => {
  test("without a trusted proxy the first hop is the peer, whatever it forwards (loopback too)", () => {
    expect(peerOf(req("10.0.0.1"), "127.0.0.1", behind())).toBe("127.0.0.1");
    expect(peerOf(req("10.0.0.1"), "203.0.113.5", behind())).toBe("203.0.113.5");
  });

  test("attack: a local program beside the proxy is not believed; the proxy is", () => {
    expect(peerOf(req("10.0.0.1"), "127.0.0.1", behind("127.0.0.2"))).toBe("127.0.0.1");
    expect(peerOf(req("10.0.0.1"), "127.0.0.2", behind("127.0.0.2"))).toBe("10.0.0.1");
    // The same address however spelled.
    expect(peerOf(req("10.0.0.1"), "::ffff:127.0.0.2", behind("127.0.0.2"))).toBe("10.0.0.1");
    expect(peerOf(req("10.0.0.1"), "::1", behind("0:0:0:0:0:0:0:1"))).toBe("10.0.0.1");
  });

  test("the right-most entry that is not a trusted proxy: what the client wrote to the left of it counts for nothing", () => {
    expect(peerOf(req("1.1.1.1, 2.2.2.2, 198.51.100.7"), "127.0.0.2", behind("127.0.0.2"))).toBe("198.51.100.7");
    // Two proxies in a row (a CDN, then nginx): past both.
    expect(peerOf(req("1.1.1.1, 198.51.100.7, 192.0.2.10"), "127.0.0.2", behind("127.0.0.2", "192.0.2.10"))).toBe("198.51.100.7");
  });

  test("no header, or an entry that is no address, counts as the proxy itself", () => {
    expect(peerOf(req(), "127.0.0.2", behind("127.0.0.2"))).toBe("127.0.0.2");
    expect(peerOf(req("1.1.1.1, not-an-address"), "127.0.0.2", behind("127.0.0.2"))).toBe("127.0.0.2");
    expect(peerOf(req(""), "127.0.0.2", behind("127.0.0.2"))).toBe("127.0.0.2");
  });
});

test("an IPv6 peer counts by its /64; IPv4 as itself", () => {
  expect(peerKey("2001:db8:1:2:3:4:5:6")).toBe(peerKey("2001:0db8:0001:0002::ffff"));
  expect(peerKey("2001:db8:1:2::1")).not.toBe(peerKey("2001:db8:1:3::1"));
  expect(peerKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
});

test("--trusted-proxy takes IP addresses only", () => {
  const base = { listen: "127.0.0.1", port: 8790, publicUrl: "wss://bsk.example.com/extension" };
  expect(resolveServerMode({ ...base, trustedProxies: ["127.0.0.2", " ::1 "] }).trustedProxies).toEqual(["127.0.0.2", "0:0:0:0:0:0:0:1"]);
  expect(resolveServerMode(base).trustedProxies).toEqual([]);
  expect(() => resolveServerMode({ ...base, trustedProxies: ["proxy.local"] })).toThrow("not an IP address");
});
