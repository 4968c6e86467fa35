import { describe, expect, test } from "bun:test";
import { normalizeOrigin, originAllowed, requestOrigin } from "../../protocol/origins.ts";

describe("origins", () => {
  test("what may be typed for --allow-origin, and its canonical form", () => {
    expect(normalizeOrigin("https://Example.com")).toBe("https://example.com");
    expect(normalizeOrigin("example.com")).toBe("https://example.com");
    expect(normalizeOrigin("http://localhost:3000/")).toBe("http://localhost:3000");
    expect(normalizeOrigin("https://example.com:443")).toBe("https://example.com");
    expect(normalizeOrigin("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080");
    for (const bad of [
      "",
      "ftp://x.example",
      "https://example.com/path",
      "https://*.example.com",
      "https://u:p@x.example",
      "https://x.example/?q",
      "javascript:alert(1)",
    ]) {
      expect(normalizeOrigin(bad)).toBeNull();
    }
  });

  test("a URL's request origin: http(s), and ws(s) as their twins; nothing for local schemes", () => {
    expect(requestOrigin("https://a.example/x?y")).toBe("https://a.example");
    expect(requestOrigin("wss://a.example:8443/socket")).toBe("https://a.example:8443");
    expect(requestOrigin("about:blank")).toBeNull();
    expect(requestOrigin("data:text/html,hi")).toBeNull();
  });

  test("only network URLs are limited, and only by a non-empty list", () => {
    const allowed = ["http://127.0.0.1:5000"];
    expect(originAllowed(allowed, "http://127.0.0.1:5000/page")).toBe(true);
    expect(originAllowed(allowed, "http://localhost:5000/page")).toBe(false);
    expect(originAllowed(allowed, "http://127.0.0.1:50001/")).toBe(false);
    expect(originAllowed(allowed, "https://127.0.0.1:5000/")).toBe(false);
    expect(originAllowed(allowed, "about:blank")).toBe(true);
    expect(originAllowed(undefined, "https://anything.example/")).toBe(true);
    expect(originAllowed([], "https://anything.example/")).toBe(true);
  });
});
