/** Console and network ring buffers: sequence numbers, the since cursor, dropped counts, CDP event → entry. */
import { describe, expect, test } from "bun:test";
import {
  atLeast,
  CONSOLE_BUDGET_CHARS,
  ConsoleLog,
  formatArgs,
  STORED_TEXT_CHARS,
} from "../../extension/src/features/diagnostics/console-log.ts";
import { isFailed, NETWORK_BUDGET_CHARS, NetworkLog, STORED_URL_CHARS } from "../../extension/src/features/diagnostics/network-log.ts";
import { clip, Ring } from "../../extension/src/features/diagnostics/ring.ts";

const filled = (n: number, capacity: number) => {
  const r = new Ring<{ seq: number; n: number }>(capacity);
  for (let i = 1; i <= n; i++) r.push((seq) => ({ seq, n: i }));
  return r;
};
const seqs = (p: { entries: { seq: number }[] }) => p.entries.map((e) => e.seq);

describe("Ring", () => {
  test("pages forward from a cursor; next_since continues exactly", () => {
    const r = filled(5, 10);
    const a = r.read(0, 2);
    expect(a).toMatchObject({ next_since: 2, dropped: 0 });
    expect(seqs(a)).toEqual([1, 2]);
    expect(seqs(r.read(a.next_since, 10))).toEqual([3, 4, 5]);
    expect(r.read(5, 10)).toEqual({ entries: [], next_since: 5, dropped: 0 });
  });

  test("keeps the newest capacity entries and counts what a reader missed", () => {
    const r = filled(25, 10);
    expect(r.lastSeq).toBe(25);
    const all = r.read(0, 100);
    expect(seqs(all)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(all.dropped).toBe(15);
    expect(r.read(12, 100).dropped).toBe(3);
    expect(r.read(15, 100).dropped).toBe(0);
    expect(r.read(20, 100).dropped).toBe(0);
  });

  test("a filter skips entries but the cursor moves past everything read", () => {
    const r = filled(6, 10);
    const even = r.read(0, 100, (e) => e.n % 2 === 0);
    expect(seqs(even)).toEqual([2, 4, 6]);
    const none = r.read(0, 100, () => false);
    expect(none).toMatchObject({ entries: [], next_since: 6 });
    const firstEven = r.read(0, 1, (e) => e.n % 2 === 0);
    expect(firstEven.next_since).toBe(2);
  });

  test("a cursor beyond the newest entry comes from before a restart: read from the start", () => {
    const r = filled(3, 10);
    expect(seqs(r.read(57, 10))).toEqual([1, 2, 3]);
  });

  test("clip cuts long text and says how much", () => {
    expect(clip("short", 80)).toBe("short");
    const cut = clip("x".repeat(500), 80);
    expect(cut.length).toBeLessThanOrEqual(80);
    expect(cut.endsWith("… [+440 chars]")).toBe(true);
  });
});

describe("Ring with a budget", () => {
  const weighed = (chars: number) => new Ring<{ seq: number; t: string }>(10, { chars, weigh: (e) => e.t.length });

  test("holds no more characters than its budget: the oldest go first, and a reader is told they were dropped", () => {
    const r = weighed(10);
    for (const t of ["aaaa", "bbbb", "cccc", "dd"]) r.push((seq) => ({ seq, t }));
    const all = r.read(0, 100);
    expect(all.entries.map((e) => e.t)).toEqual(["bbbb", "cccc", "dd"]);
    expect(all.dropped).toBe(1);
    expect(r.chars).toBe(10);
  });

  test("the newest entry stays even when it alone is over the budget; counted entries still bound it", () => {
    const r = weighed(10);
    r.push((seq) => ({ seq, t: "small" }));
    r.push((seq) => ({ seq, t: "x".repeat(50) }));
    expect(r.read(0, 100)).toMatchObject({ entries: [{ seq: 2 }], dropped: 1 });
    const many = weighed(1_000);
    for (let i = 0; i < 25; i++) many.push((seq) => ({ seq, t: "y" }));
    expect(many.read(0, 100)).toMatchObject({ dropped: 15 });
    expect(many.chars).toBe(10);
  });
});

describe("ConsoleLog", () => {
  const str = (value: string) => ({ type: "string", value });
  const num = (value: number) => ({ type: "number", value, description: String(value) });

  test("format specifiers, objects by preview, errors by description", () => {
    expect(formatArgs([str("%s has %d items (%i%%)"), str("cart"), num(3.7), num(50)])).toBe("cart has 3 items (50%)");
    expect(formatArgs([str("%cstyled"), str("color: red"), str("tail")])).toBe("styled tail");
    const obj = {
      type: "object",
      className: "Object",
      description: "Object",
      preview: {
        properties: [
          { name: "a", type: "number", value: "1" },
          { name: "b", type: "string", value: "x" },
        ],
        overflow: true,
      },
    };
    expect(formatArgs([str("got"), obj])).toBe('got {a: 1, b: "x", …}');
    const arr = {
      type: "object",
      subtype: "array",
      description: "Array(2)",
      preview: {
        properties: [
          { name: "0", type: "number", value: "1" },
          { name: "1", type: "number", value: "2" },
        ],
      },
    };
    expect(formatArgs([arr, { type: "undefined" }, { type: "object", subtype: "null", value: null }])).toBe("[1, 2] undefined null");
    expect(formatArgs([{ type: "object", subtype: "error", description: "Error: x\n    at f" }])).toBe("Error: x\n    at f");
    expect(formatArgs([{ type: "bigint", unserializableValue: "12n" }])).toBe("12n");
  });

  test("consoleAPICalled, exceptionThrown and Log.entryAdded become entries with level, place and time", () => {
    const log = new ConsoleLog(10);
    log.onEvent("Runtime.consoleAPICalled", {
      type: "warning",
      args: [str("careful")],
      timestamp: 1_700_000_000_000,
      stackTrace: { callFrames: [{ url: "http://x/a.js", lineNumber: 9 }] },
    });
    log.onEvent("Runtime.consoleAPICalled", { type: "assert", args: [str("x > 0")], timestamp: 1 });
    log.onEvent("Runtime.consoleAPICalled", { type: "endGroup", args: [], timestamp: 1 });
    log.onEvent("Runtime.exceptionThrown", {
      timestamp: 2,
      exceptionDetails: {
        text: "Uncaught",
        url: "http://x/b.js",
        lineNumber: 2,
        exception: { type: "object", subtype: "error", description: "Error: boom" },
      },
    });
    log.onEvent("Log.entryAdded", {
      entry: { source: "network", level: "error", text: "Failed to load resource: 404", url: "http://x/i.png", timestamp: 3 },
    });
    log.onEvent("Log.entryAdded", { entry: { source: "violation", level: "verbose", text: "slow handler", timestamp: 4 } });
    log.onEvent("Log.entryAdded", {
      entry: {
        source: "other",
        level: "verbose",
        text: "[DOM] Input elements should have autocomplete attributes: %o",
        timestamp: 5,
        args: [{ type: "object", subtype: "node", description: "input#pw" }],
      },
    });
    log.onEvent("Page.frameNavigated", {});
    expect(log.ring.read(0, 100).entries).toEqual([
      { seq: 1, level: "warning", text: "careful", url: "http://x/a.js", line: 10, ts: 1_700_000_000_000 },
      { seq: 2, level: "error", text: "Assertion failed: x > 0", ts: 1 },
      { seq: 3, level: "error", text: "Uncaught Error: boom", url: "http://x/b.js", line: 3, ts: 2 },
      { seq: 4, level: "error", text: "Failed to load resource: 404", url: "http://x/i.png", ts: 3 },
      { seq: 5, level: "debug", text: "slow handler", ts: 4 },
      { seq: 6, level: "debug", text: "[DOM] Input elements should have autocomplete attributes: input#pw", ts: 5 },
    ]);
  });

  test("a lent tab's log keeps nothing from before the loan, replayed or not", () => {
    const log = new ConsoleLog(10, undefined, 1_000);
    log.onEvent("Runtime.consoleAPICalled", { type: "log", args: [str("token=hunter2")], timestamp: 999.9 });
    log.onEvent("Log.entryAdded", { entry: { source: "other", level: "info", text: "browser note", timestamp: 500 } });
    log.onEvent("Runtime.exceptionThrown", { timestamp: 10, exceptionDetails: { text: "Uncaught" } });
    log.onEvent("Runtime.consoleAPICalled", { type: "log", args: [str("after")], timestamp: 1_000 });
    expect(log.ring.read(0, 100).entries.map((e) => e.text)).toEqual(["after"]);
  });

  test("minimum level: log and info rank the same", () => {
    expect(atLeast("error", "warning")).toBe(true);
    expect(atLeast("log", "info")).toBe(true);
    expect(atLeast("info", "log")).toBe(true);
    expect(atLeast("debug", "log")).toBe(false);
    expect(atLeast("warning", undefined)).toBe(true);
  });
  test("a page logging long messages keeps its newest within the budget, not 1,000 × 16 KiB", () => {
    const c = new ConsoleLog(1000);
    const long = "z".repeat(STORED_TEXT_CHARS * 2);
    for (let i = 0; i < 1000; i++)
      c.onEvent("Runtime.consoleAPICalled", { type: "log", args: [{ type: "string", value: `${i} ${long}` }], timestamp: i });
    expect(c.ring.chars).toBeLessThanOrEqual(CONSOLE_BUDGET_CHARS);
    const page = c.ring.read(0, 1000);
    expect(page.entries.length).toBe(Math.floor(CONSOLE_BUDGET_CHARS / STORED_TEXT_CHARS));
    expect(page.entries.at(-1)?.text.startsWith("999 ")).toBe(true);
    expect(page.dropped + page.entries.length).toBe(1000);
  });
});

describe("NetworkLog", () => {
  const sent = (id: string, url: string, t: number, extra: Record<string, unknown> = {}) =>
    [
      "Network.requestWillBeSent",
      { requestId: id, request: { url, method: "GET" }, timestamp: t, wallTime: 1_700_000_000 + t, type: "Fetch", ...extra },
    ] as const;

  test("a lent tab's log keeps no request sent before the loan, even one that ends after it", () => {
    const n = new NetworkLog(10, 10, undefined, (1_700_000_000 + 10) * 1000);
    n.onEvent(...sent("1", "http://x/before", 9));
    n.onEvent(...sent("2", "http://x/after", 11));
    n.onEvent("Network.loadingFinished", { requestId: "1", timestamp: 12 });
    n.onEvent("Network.loadingFinished", { requestId: "2", timestamp: 12 });
    expect(n.ring.read(0, 100).entries.map((e) => e.url)).toEqual(["http://x/after"]);
  });

  test("a request is listed when it ends: finished, failed, or redirected; in-flight ones wait", () => {
    const n = new NetworkLog(10);
    n.onEvent(...sent("1", "http://x/ok", 10));
    n.onEvent(...sent("2", "http://x/missing", 10.001));
    n.onEvent(...sent("3", "http://127.0.0.1:9/", 10.002));
    n.onEvent(...sent("4", "http://x/slow", 10.003));
    n.onEvent("Network.responseReceived", { requestId: "2", type: "Fetch", response: { status: 404 } });
    n.onEvent("Network.loadingFinished", { requestId: "2", timestamp: 10.0085 });
    n.onEvent("Network.loadingFailed", { requestId: "3", timestamp: 10.012, errorText: "net::ERR_CONNECTION_REFUSED" });
    n.onEvent("Network.responseReceived", { requestId: "1", type: "Fetch", response: { status: 200 } });
    n.onEvent("Network.loadingFinished", { requestId: "1", timestamp: 10.02 });
    const entries = n.ring.read(0, 100).entries;
    expect(entries).toEqual([
      { seq: 1, method: "GET", url: "http://x/missing", type: "fetch", status: 404, duration_ms: 7.5, ts: 1_700_000_010_001 },
      {
        seq: 2,
        method: "GET",
        url: "http://127.0.0.1:9/",
        type: "fetch",
        status: null,
        error: "net::ERR_CONNECTION_REFUSED",
        duration_ms: 10,
        ts: 1_700_000_010_002,
      },
      { seq: 3, method: "GET", url: "http://x/ok", type: "fetch", status: 200, duration_ms: 20, ts: 1_700_000_010_000 },
    ]);
    expect(entries.map(isFailed)).toEqual([true, true, false]);
  });

  test("a redirect ends the first hop with its 3xx; a cancelled load says so", () => {
    const n = new NetworkLog(10);
    n.onEvent(...sent("r", "http://x/login", 1, { type: "Document" }));
    n.onEvent(...sent("r", "http://x/account", 1.01, { type: "Document", redirectResponse: { status: 302 } }));
    n.onEvent("Network.loadingFailed", { requestId: "r", timestamp: 1.02, errorText: "net::ERR_ABORTED", canceled: true });
    expect(n.ring.read(0, 10).entries.map((e) => [e.url, e.status, e.error])).toEqual([
      ["http://x/login", 302, undefined],
      ["http://x/account", null, "net::ERR_ABORTED (canceled)"],
    ]);
  });

  test("request ids of different CDP sessions (out-of-process iframes) do not mix", () => {
    const n = new NetworkLog(10);
    n.onEvent(...sent("1", "http://x/main", 1));
    n.onEvent(sent("1", "http://y/frame", 1)[0], sent("1", "http://y/frame", 1)[1], "child-a");
    n.onEvent("Network.loadingFailed", { requestId: "1", timestamp: 2, errorText: "net::ERR_FAILED" }, "child-a");
    n.onEvent("Network.loadingFinished", { requestId: "1", timestamp: 3 });
    expect(n.ring.read(0, 10).entries.map((e) => [e.url, e.error])).toEqual([
      ["http://y/frame", "net::ERR_FAILED"],
      ["http://x/main", undefined],
    ]);
  });

  test("data: URLs are not listed", () => {
    const n = new NetworkLog(10);
    n.onEvent(...sent("d", "data:image/svg+xml;base64,AAAA", 1));
    n.onEvent("Network.loadingFinished", { requestId: "d", timestamp: 2 });
    expect(n.ring.read(0, 10).entries).toEqual([]);
  });

  test("requests in flight are bounded; the oldest is forgotten", () => {
    const n = new NetworkLog(10, 2);
    n.onEvent(...sent("a", "http://x/a", 1));
    n.onEvent(...sent("b", "http://x/b", 1));
    n.onEvent(...sent("c", "http://x/c", 1));
    for (const id of ["a", "b", "c"]) n.onEvent("Network.loadingFinished", { requestId: id, timestamp: 2 });
    expect(n.ring.read(0, 10).entries.map((e) => e.url)).toEqual(["http://x/b", "http://x/c"]);
  });
  test("long URLs: finished and in-flight requests each hold at most their budget; the newest are kept", () => {
    const n = new NetworkLog(1000, 1000);
    const url = (i: number) => `http://x/${i}/${"u".repeat(STORED_URL_CHARS)}`;
    for (let i = 0; i < 1000; i++) n.onEvent(...sent(`f${i}`, url(i), 1));
    // In flight: the oldest were forgotten, so their ends are not listed; the newest are.
    for (let i = 0; i < 1000; i++) n.onEvent("Network.loadingFinished", { requestId: `f${i}`, timestamp: 2 });
    const page = n.ring.read(0, 1000);
    expect(n.ring.chars).toBeLessThanOrEqual(NETWORK_BUDGET_CHARS);
    expect(page.entries.length).toBe(Math.floor(NETWORK_BUDGET_CHARS / STORED_URL_CHARS));
    expect(page.entries.at(-1)?.url.startsWith("http://x/999/")).toBe(true);
    expect(page.entries[0]?.url.startsWith(`http://x/${1000 - page.entries.length}/`)).toBe(true);
  });
});
