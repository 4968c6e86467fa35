/** The extension's scope rule and URL helpers: pure functions, no browser. */
import { describe, expect, test } from "bun:test";
import { BskError } from "../../protocol/errors.ts";
import { parseBrowser } from "../../extension/src/shared/browser-info.ts";
import { assertNotRestricted, assertOwned, isRestrictedUrl, ownerOf, type OwnedTabs } from "../../extension/src/session/scope.ts";
import { normalizeUrl } from "../../protocol/urls.ts";
import { urlMatcher } from "../../extension/src/shared/urls.ts";

const sessions: OwnedTabs[] = [
  { session_id: "aaaa", tabs: { "1": "created", "2": "opened", "3": "borrowed" } },
  { session_id: "bbbb", tabs: { "10": "created" } },
];

function thrown(fn: () => unknown): BskError {
  try {
    fn();
  } catch (err) {
    if (err instanceof BskError) return err;
    throw err;
  }
  throw new Error("did not throw");
}

describe("ownership", () => {
  test("owner as seen by the calling session", () => {
    expect(ownerOf(1, "aaaa", sessions)).toEqual({ owner: "session", ownership: "created" });
    expect(ownerOf(10, "aaaa", sessions)).toEqual({ owner: "other_session", session_id: "bbbb", ownership: "created" });
    expect(ownerOf(99, "aaaa", sessions)).toEqual({ owner: "person" });
  });

  test("a session may act on what it created, opened or borrowed", () => {
    expect(assertOwned(1, "aaaa", sessions, true)).toBe("created");
    expect(assertOwned(2, "aaaa", sessions, true)).toBe("opened");
    expect(assertOwned(3, "aaaa", sessions, true)).toBe("borrowed");
  });

  test("a person's tab is refused with agent_window_scope", () => {
    const e = thrown(() => assertOwned(99, "aaaa", sessions, true));
    expect(e.code).toBe("permission_denied");
    expect(e.data?.reason).toBe("agent_window_scope");
    expect(e.hint).toContain("bsk tab");
  });

  test("another session's tab is refused exactly like a person's, without naming the session", () => {
    const e = thrown(() => assertOwned(10, "aaaa", sessions, true));
    expect(e.code).toBe("permission_denied");
    expect(e.data?.reason).toBe("agent_window_scope");
    expect(JSON.stringify(e.toBody())).not.toContain("bbbb");
  });

  test("a tab the browser does not know is not_found, owned or not", () => {
    expect(thrown(() => assertOwned(12345, "aaaa", sessions, false)).code).toBe("not_found");
    expect(thrown(() => assertOwned(1, "aaaa", sessions, false)).code).toBe("not_found");
  });
});

describe("restricted URLs", () => {
  test.each([
    "chrome://settings",
    "CHROME://version",
    "chrome-extension://mmgjjcpeaknlocpgodfmbngemnnhomck/popup.html",
    "chrome-extension://abcdefghijklmnopabcdefghijklmnop/x.html",
    "devtools://devtools/bundled/inspector.html",
    "chrome-search://local-ntp/local-ntp.html",
    "chrome-untrusted://terminal/",
    "view-source:https://example.com",
    "edge://settings",
    "about:version",
    "about:settings",
    "https://chrome.google.com/webstore",
    "https://chrome.google.com/webstore/detail/abc",
    "https://chromewebstore.google.com/",
    "https://chromewebstore.google.com/detail/x/abc",
    "http://chromewebstore.google.com/detail/x",
    "file:///tmp/x.html",
    "FILE:///etc/passwd",
    "filesystem:https://example.com/temporary/x",
    "blob:null/0a0a",
    "blob:chrome-extension://abc/0a0a",
  ])("%s is restricted", (url) => {
    expect(isRestrictedUrl(url)).toBe(true);
  });

  test.each([
    "about:blank",
    "about:blank#x",
    "about:srcdoc",
    "https://example.com/",
    "http://127.0.0.1:3000/chrome://x",
    "https://chrome.google.com/search",
    "https://chrome.google.com/webstorefront",
    "data:text/html,hi",
    "blob:https://example.com/0a0a",
    "",
  ])("%s is allowed", (url) => {
    expect(isRestrictedUrl(url)).toBe(false);
  });

  test("file: only where the person's switch allows it (guard/file-urls.ts decides)", () => {
    expect(isRestrictedUrl("file:///tmp/x.html", true)).toBe(false);
    expect(isRestrictedUrl("chrome://settings", true)).toBe(true);
  });

  test("refusal names restricted_url", () => {
    const e = thrown(() => assertNotRestricted("chrome://settings", 7));
    expect(e.code).toBe("permission_denied");
    expect(e.data).toMatchObject({ reason: "restricted_url", url: "chrome://settings", tab_id: 7 });
    expect(e.hint).toContain("cannot be automated");
  });
});

describe("normalizeUrl", () => {
  test.each([
    ["https://example.com/x", "https://example.com/x"],
    ["example.com/x", "https://example.com/x"],
    ["localhost:3000/a", "http://localhost:3000/a"],
    ["127.0.0.1:8080", "http://127.0.0.1:8080"],
    ["about:blank", "about:blank"],
    ["chrome://settings", "chrome://settings"],
    ["  file:///tmp/a.html ", "file:///tmp/a.html"],
  ])("%s → %s", (input, out) => {
    expect(normalizeUrl(input)).toBe(out);
  });

  test("javascript: and non-URLs are invalid_params", () => {
    expect(thrown(() => normalizeUrl("javascript:alert(1)")).code).toBe("invalid_params");
    expect(thrown(() => normalizeUrl("not a url")).code).toBe("invalid_params");
  });
});

describe("urlMatcher", () => {
  const u = "http://127.0.0.1:3000/echo-title/Two?x=1";
  test("substring", () => {
    expect(urlMatcher("echo-title/Two")(u)).toBe(true);
    expect(urlMatcher("Three")(u)).toBe(false);
  });
  test("glob matches the whole URL", () => {
    expect(urlMatcher("*/echo-title/*")(u)).toBe(true);
    expect(urlMatcher("*/echo-title/Two")(u)).toBe(false);
    expect(urlMatcher("http://127.0.0.1:3000/*?x=1")(u)).toBe(true);
    expect(urlMatcher("*.html")("http://a/b.html")).toBe(true);
    expect(urlMatcher("*.html")("http://a/bxhtml")).toBe(false);
  });
  test("regex with flags, stateless", () => {
    const m = urlMatcher("/TWO\\?x=\\d$/gi");
    expect(m(u)).toBe(true);
    expect(m(u)).toBe(true);
    expect(urlMatcher("/never-matches/")(u)).toBe(false);
  });
  test("a bad regex is invalid_params", () => {
    expect(thrown(() => urlMatcher("/(/")).code).toBe("invalid_params");
  });
});

describe("parseBrowser", () => {
  const ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.8078.108 Safari/537.36";
  test("headless Chromium", () => {
    expect(parseBrowser(ua)).toEqual({ name: "Chromium", version: "156.0.8078.108" });
  });
  test("brand name wins, full version from the UA", () => {
    const chrome = ua.replace("HeadlessChrome", "Chrome");
    const brands = [
      { brand: "Not)A;Brand", version: "8" },
      { brand: "Chromium", version: "156" },
      { brand: "Google Chrome", version: "156" },
    ];
    expect(parseBrowser(chrome, brands)).toEqual({ name: "Chrome", version: "156.0.8078.108" });
  });
  test("Edge", () => {
    expect(parseBrowser(`${ua.replace("HeadlessChrome", "Chrome")} Edg/150.0.1.2`).name).toBe("Edge");
  });
});
