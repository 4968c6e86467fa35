/**
 * Console and network capture, emulation, window resize and screenshot files, through dist/bsk against real
 * Chromium. Synchronisation is by what the page reports (a promise evaluate awaits), never by sleeping.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { freePort, useWorld, type World } from "./harness.ts";
import { tempDir } from "../temp.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

const inSession = (...args: string[]) => [...args, "--session", s];

describe("console", () => {
  test("console.error, an uncaught exception and a failed load are captured, paged by seq with --since", async () => {
    await w.ok(inSession("navigate", w.fixtures.url("/diag-console.html")));
    const all = await w.ok(inSession("console"));
    const texts = all.messages.map((m: any) => `${m.level} ${m.text.split("\n")[0]}`);
    expect(texts).toContain('log hello world {a: 1, b: "two"}');
    expect(texts).toContain("warning careful: 3 items left");
    expect(texts).toContain("error bad thing happened 42");
    expect(texts).toContain("error Uncaught Error: boom at load");
    const missing = all.messages.find((m: any) => m.url?.endsWith("/missing-image.png"));
    // (Bun's toMatchObject writes asymmetric matchers into the object it checks, so these stay plain.)
    expect(missing.level).toBe("error");
    expect(missing.text).toContain("404");
    const boom = all.messages.find((m: any) => m.text.startsWith("Uncaught Error: boom"));
    expect(boom.url).toBe(w.fixtures.url("/diag-console.html"));
    expect(boom.line).toBeGreaterThan(0);
    expect(Date.parse(boom.ts)).toBeGreaterThan(0);
    expect(all.dropped).toBe(0);

    // seq is monotonic; --limit pages, --since continues exactly where the last page ended.
    const seqs = all.messages.map((m: any) => m.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const first = await w.ok(inSession("console", "--limit", "2"));
    expect(first.messages.map((m: any) => m.seq)).toEqual(seqs.slice(0, 2));
    expect(first.next_since).toBe(seqs[1]);
    const rest = await w.ok(inSession("console", "--since", String(first.next_since)));
    expect(rest.messages.map((m: any) => m.seq)).toEqual(seqs.slice(2));

    // New messages after the cursor, and only those.
    await w.ok(inSession("evaluate", "console.error('later one'); 1"));
    const later = await w.ok(inSession("console", "--since", String(all.next_since)));
    expect(later.messages.map((m: any) => m.text)).toEqual(["later one"]);

    const errors = await w.ok(inSession("console", "--level", "error"));
    expect(errors.messages.every((m: any) => m.level === "error")).toBe(true);
    expect(errors.messages.length).toBeGreaterThanOrEqual(4);

    const long = (await w.ok(inSession("console", "--max-text", "80"))).messages.find((m: any) => m.text.startsWith("xxx"));
    expect(long.text.length).toBeLessThanOrEqual(80);
    expect(long.text).toContain("chars]");

    const human = await w.bsk(inSession("console", "--level", "error"));
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^\d+ {2}error {4}Uncaught Error: boom at load ⏎ at explode/m);
    expect(human.stderr).toContain("-- next: --since");
  });

  test("an out-of-process iframe's console and requests are captured too", async () => {
    const since = { console: (await w.ok(inSession("console"))).next_since, network: (await w.ok(inSession("network"))).next_since };
    await w.ok(inSession("navigate", w.fixtures.url("/diag-frame.html")));
    // Messages the frame logged before its capture began are replayed when it begins.
    const messages = (await w.ok(inSession("console", "--level", "error", "--since", String(since.console)))).messages;
    const boom = messages.find((m: any) => m.text.startsWith("Uncaught Error: boom at load"));
    expect(boom?.url).toBe(w.fixtures.crossUrl("/diag-frame-child.html"));
    // Requests are not replayed: the frame fetches once asked, after the console read above waited for its capture.
    expect((await w.ok(inSession("evaluate", "askChild()"))).value).toBe("fetched");
    const requests = (await w.ok(inSession("network", "--failed", "--since", String(since.network)))).requests;
    expect(requests.map((r: any) => r.url)).toContain(w.fixtures.crossUrl("/status/404"));
  });

  test("the ring keeps the newest 1000 messages and counts the dropped ones", async () => {
    const before = (await w.ok(inSession("console"))).next_since;
    await w.ok(inSession("evaluate", "for (let i = 0; i < 1100; i++) console.log('flood ' + i); 1"));
    const page = await w.ok(inSession("console", "--since", String(before), "--limit", "500"));
    expect(page.dropped).toBe(100);
    expect(page.messages[0].text).toBe("flood 100");
    const tail = await w.ok(inSession("console", "--since", String(page.next_since), "--limit", "500"));
    expect(tail.dropped).toBe(0);
    expect(tail.messages.at(-1).text).toBe("flood 1099");
    const none = await w.ok(inSession("console", "--since", String(tail.next_since)));
    expect(none).toMatchObject({ messages: [], next_since: tail.next_since, dropped: 0 });
  });
});

describe("network", () => {
  test("a 404 and a refused connection are failed requests; --failed leaves out the ones that worked", async () => {
    const refused = await freePort();
    await w.ok(inSession("navigate", w.fixtures.url(`/diag-network.html?refused=${refused}`)));
    expect((await w.ok(inSession("evaluate", "settled"))).value).toEqual(["fulfilled", "fulfilled", "rejected"]);

    const all = await w.ok(inSession("network"));
    const byPath = (p: string) => all.requests.find((r: any) => r.url.includes(p));
    expect(byPath("/diag-network.html")).toMatchObject({ method: "GET", type: "document", status: 200 });
    expect(byPath("/echo-title/ok")).toMatchObject({ type: "fetch", status: 200, duration_ms: expect.any(Number) });
    expect(byPath("/status/404")).toMatchObject({ type: "fetch", status: 404 });
    expect(byPath(`:${refused}/nothing-here`)).toMatchObject({ status: null, error: expect.stringContaining("ERR_CONNECTION_REFUSED") });

    const failed = await w.ok(inSession("network", "--failed"));
    const urls = failed.requests.map((r: any) => r.url);
    expect(urls).toContain(w.fixtures.url("/status/404"));
    expect(urls).toContain(`http://127.0.0.1:${refused}/nothing-here`);
    expect(urls.some((u: string) => u.includes("/echo-title/ok") || u.includes("/diag-network.html"))).toBe(false);

    // Paging by --since over the same requests.
    const one = await w.ok(inSession("network", "--limit", "1"));
    const next = await w.ok(inSession("network", "--since", String(one.next_since)));
    expect([...one.requests, ...next.requests].map((r: any) => r.seq)).toEqual(all.requests.map((r: any) => r.seq));

    const human = await w.bsk(inSession("network", "--failed"));
    expect(human.stdout).toMatch(/^\d+ {2}404 {5}GET http:\/\/127\.0\.0\.1:\d+\/status\/404 {2}fetch/m);
    expect(human.stdout).toMatch(/^\d+ {2}failed {2}GET .*nothing-here {2}fetch .*net::ERR_CONNECTION_REFUSED$/m);
  });
});

describe("emulation", () => {
  test("emulate --device iphone-14 changes viewport, pixel ratio, touch and UA; --off restores them", async () => {
    await w.ok(inSession("navigate", w.fixtures.url("/diag-viewport.html")));
    const view = `[innerWidth, innerHeight, devicePixelRatio, navigator.userAgent, navigator.maxTouchPoints]`;
    const [width, height, dpr, ua] = (await w.ok(inSession("evaluate", view))).value;

    const on = await w.ok(inSession("emulate", "--device", "iphone-14"));
    expect(on).toMatchObject({ emulating: true, viewport: { width: 390, height: 844, dpr: 3, mobile: true }, touch: true });
    expect(on.user_agent).toContain("iPhone");
    const seen = (await w.ok(inSession("evaluate", view))).value;
    expect(seen).toEqual([390, 844, 3, on.user_agent, 5]);

    // Fields merge with what is emulated already.
    const wider = await w.ok(inSession("emulate", "--width", "400"));
    expect(wider.viewport).toMatchObject({ width: 400, height: 844, dpr: 3 });
    expect(wider.user_agent).toContain("iPhone");

    // The height follows the window, whose chrome (e.g. the debugging info bar) may have changed meanwhile.
    const off = await w.ok(inSession("emulate", "--off"));
    expect(off).toMatchObject({ emulating: false, viewport: { width, dpr, mobile: false }, touch: false, user_agent: ua });
    expect(Math.abs(off.viewport.height - height)).toBeLessThan(100);
    const after = (await w.ok(inSession("evaluate", view))).value;
    expect([after[0], after[2], after[3], after[4]]).toEqual([width, dpr, ua, 0]);
    expect(Math.abs(after[1] - height)).toBeLessThan(100);

    const human = await w.bsk(inSession("emulate", "--device", "pixel-7"));
    expect(human.stdout).toMatch(/^emulating 412x915 @2\.625x mobile touch — Mozilla\/5\.0 \(Linux; Android/);
    await w.ok(inSession("emulate", "--off"));

    const nothing = await w.bsk(inSession("emulate", "--json"));
    expect(nothing.json.error).toMatchObject({ code: "invalid_params", hint: expect.stringContaining("--device") });
  });

  test("window resize changes the Agent Window and the page's viewport", async () => {
    const r = await w.ok(inSession("window", "resize", "--width", "900", "--height", "700"));
    expect(r).toMatchObject({ width: 900, height: 700, viewport: { width: 900, height: expect.any(Number) } });
    expect((await w.ok(inSession("evaluate", "[outerWidth, outerHeight, innerWidth]"))).value).toEqual([900, 700, 900]);
    const again = await w.ok(inSession("window", "resize", "--width", "1100", "--height", "760"));
    expect(again).toMatchObject({ window_id: r.window_id, width: 1100, height: 760, viewport: { width: 1100 } });
  });

  test("window resize with a JS dialog open resizes and leaves the viewport out instead of waiting", async () => {
    const opened = await w.bsk(inSession("evaluate", "alert('in the way')", "--json"));
    expect(opened.json.error.code).toBe("dialog_pending");
    const r = await w.ok(inSession("window", "resize", "--width", "1000", "--height", "700"));
    expect(r).toMatchObject({ width: 1000, height: 700 });
    expect(r.viewport).toBeUndefined();
    await w.ok(inSession("dialog", "accept"));
  });
});

describe("screenshot files", () => {
  test("--out writes the file the CLI was given; without it a fresh file in $TMPDIR", async () => {
    const dir = tempDir("bsk-e2e-shot-");
    try {
      const out = join(dir, "page.png");
      const r = await w.ok(inSession("screenshot", "--out", out));
      expect(r).toMatchObject({ path: out, format: "png" });
      expect(r.data).toBeUndefined();
      expect(readFileSync(out).subarray(1, 4).toString()).toBe("PNG");
      expect(readFileSync(out).length).toBe(r.bytes);

      const byDefault = await w.bsk(inSession("screenshot"), { env: { TMPDIR: dir } });
      expect(byDefault.code).toBe(0);
      const path = byDefault.stdout.trim();
      expect(path.startsWith(`${dir}/bsk-screenshot-`)).toBe(true);
      expect(existsSync(path)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
