import { describe, expect, test } from "bun:test";
import { dispositionName, downloadOf, urlName } from "../../extension/src/features/files/download-response.ts";

const head = (headers: Record<string, string>, status = 200, url = "https://example.test/files/report%20Q3.pdf?x=1") => ({
  url,
  status,
  headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
});

describe("is a document response a download", () => {
  test("an attachment is, whatever its type; its name and size come from the headers", () => {
    expect(
      downloadOf(
        head({
          "Content-Type": "text/html; charset=utf-8",
          "content-disposition": 'attachment; filename="a.html"',
          "Content-Length": "42",
        }),
        null,
      ),
    ).toEqual({
      url: "https://example.test/files/report%20Q3.pdf?x=1",
      name: "a.html",
      mime: "text/html",
      size: 42,
    });
  });

  test("a type the browser shows is not, unless the page asked for a download (a[download])", () => {
    for (const t of [
      "text/html",
      "text/plain",
      "image/png",
      "application/json",
      "application/pdf",
      "video/mp4",
      "image/svg+xml",
      "application/ld+json",
    ]) {
      expect(downloadOf(head({ "content-type": t }), null)).toBeNull();
    }
    expect(downloadOf(head({ "content-type": "text/html" }), { name: "copy.html" })).toMatchObject({ name: "copy.html", size: null });
    expect(downloadOf(head({ "content-type": "text/html" }), {})).toMatchObject({ name: "report Q3.pdf" });
  });

  test("a type the browser cannot show is", () => {
    for (const t of ["application/octet-stream", "application/zip", "application/vnd.ms-excel"]) {
      expect(downloadOf(head({ "content-type": t }), null)).toMatchObject({ mime: t });
    }
  });

  test("no success, no download: errors, redirects and empty answers go on to the browser", () => {
    for (const status of [204, 301, 404, 500]) expect(downloadOf(head({ "content-disposition": "attachment" }, status), null)).toBeNull();
  });

  test("a compressed body's Content-Length is not its size; an unknown type is left to the browser", () => {
    expect(
      downloadOf(head({ "content-disposition": "attachment", "content-length": "10", "content-encoding": "gzip" }), null)?.size,
    ).toBeNull();
    expect(downloadOf(head({}), null)).toBeNull();
  });

  test("Content-Disposition wins over the download attribute, as in the browser", () => {
    expect(downloadOf(head({ "content-disposition": 'attachment; filename="server.bin"' }), { name: "page.bin" })?.name).toBe("server.bin");
  });
});

describe("file names", () => {
  test("filename* (RFC 5987) wins over filename; quotes and escapes are undone", () => {
    expect(dispositionName(`attachment; filename="plain.txt"; filename*=UTF-8''%E6%8A%A5%E5%91%8A.txt`)).toBe("报告.txt");
    expect(dispositionName('attachment; filename="say \\"hi\\".txt"')).toBe('say "hi".txt');
    expect(dispositionName("attachment; filename=bare.csv")).toBe("bare.csv");
    expect(dispositionName("attachment; filename*=UTF-8''%ZZ; filename=fallback.txt")).toBe("fallback.txt");
    expect(dispositionName("attachment")).toBeUndefined();
    expect(dispositionName(undefined)).toBeUndefined();
  });

  test("from the URL: the last segment, decoded, else 'download'", () => {
    expect(urlName("https://x.test/a/b%20c.zip?q=1#f")).toBe("b c.zip");
    expect(urlName("https://x.test/")).toBe("download");
    expect(urlName("not a url")).toBe("download");
  });
});
