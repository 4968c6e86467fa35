/**
 * A hostile or careless agent's numbers and scripts: out-of-range coordinates, deltas, sizes, counts and durations are
 * invalid_params naming the range before anything reaches the page, and a page script that never returns is stopped
 * when its call runs out of time, so the tab answers the next call.
 */
import { describe, expect, test } from "bun:test";
import { useWorld, type World } from "./harness.ts";

let w: World;
let s: string;

useWorld({ session: true }, (world, session) => ([w, s] = [world, session]));

const ok = (args: string[]) => w.ok([...args, "--session", s]);
const run = (args: string[]) => w.bsk([...args, "--session", s, "--json"]);
const js = async (expression: string) => (await ok(["evaluate", expression])).value;

async function fails(args: string[], code: string): Promise<any> {
  const r = await run(args);
  if (r.json?.ok !== false) throw new Error(`expected ${args.join(" ")} to fail with ${code}, got:\n${r.stdout}${r.stderr}`);
  expect(r.json.error.code).toBe(code);
  return r.json.error;
}

describe("out-of-range numbers are invalid_params, and nothing is sent", () => {
  test("coordinates, deltas, sizes, counts and durations", async () => {
    await ok(["navigate", w.fixtures.url("/runaway.html")]);
    const viewport = await js("[innerWidth, innerHeight]");
    const before = await js("events.length");

    const huge = await fails(["click", "--x", "3.5e38", "--y", "10"], "invalid_params");
    expect(huge.message).toContain("--x must be from 0 to 7680");
    expect(huge.data.range).toEqual({ min: 0, max: 7680 });
    expect(huge.hint).toContain("from 0 to 7680");
    expect((await fails(["mouse", "move", "--x", "10", "--y", "1e6"], "invalid_params")).data.path).toBe("y");
    expect((await fails(["mouse", "down", "--x", "1e300", "--y", "1"], "invalid_params")).data.path).toBe("x");
    // Within the catalog's range but outside this tab's viewport: refused by the extension before any input.
    const outside = await fails(["click", "--x", String(viewport[0] + 50), "--y", "10"], "invalid_params");
    // The error names the viewport as the tab has it then (the input brought the tab to the front, which can move its
    // height by a pixel): the size read after the refusal.
    const now = await js("[innerWidth, innerHeight]");
    expect(outside.data).toMatchObject({ reason: "outside_viewport", viewport: { width: now[0], height: now[1] } });
    expect((await fails(["hover", "--x", "10", "--y", String(viewport[1] + 1)], "invalid_params")).data.reason).toBe("outside_viewport");

    expect((await fails(["wheel", "--dy", "1e9"], "invalid_params")).data.range).toEqual({ min: -100000, max: 100000 });
    expect((await fails(["emulate", "--width", "100000"], "invalid_params")).data.range).toEqual({ min: 1, max: 7680 });
    expect((await fails(["click", "--x", "10", "--y", "10", "--count", "50"], "invalid_params")).data.range).toEqual({ min: 1, max: 3 });
    expect((await fails(["press", "Tab", "--count", "100000"], "invalid_params")).data.path).toBe("count");
    expect((await fails(["type", "abc", "--delay", "1h"], "invalid_params")).message).toContain("--delay must be from 0 to 1s");
    const wait = (await w.bsk(["wait", "2h", "--json"])).json.error;
    expect(wait).toMatchObject({ code: "invalid_params", data: { range: { min: 0, max: 300_000 } } });
    expect(wait.message).toContain("<duration_ms> must be from 0 to 5m");

    expect(await js("events.length")).toBe(before);
    // The tab still takes input.
    await ok(["click", "--x", "100", "--y", "150"]);
    expect(await js("events.filter((e) => e.startsWith('click'))")).toEqual(["click@100,150"]);
  });

  test("a duration past its range is invalid_params with the range, never a malformed frame", async () => {
    const record = await w.bsk(["record", "start", "--timeout", "48h", "--json"]);
    expect(record.json?.ok).toBe(false);
    expect(record.json.error.code).toBe("invalid_params");
    expect(record.json.error.message).toContain("--timeout must be from 1s to 23h");
    expect(record.json.error.data.range).toEqual({ min: 1000, max: 23 * 3_600_000 });
    const lease = await w.bsk(["session", "start", "--lease", "48h", "--json"]);
    expect(lease.json.error).toMatchObject({ code: "invalid_params", data: { path: "lease_ms", range: { min: 1000, max: 3_600_000 } } });
    const sessions = (await w.ok(["session", "list"])).sessions as { session_id: string; state?: string }[];
    expect(sessions.map((x) => x.session_id)).toEqual([s]);
  });
});

describe("a runaway page script", () => {
  test("evaluate past its timeout stops the script; evaluate, reload and navigate work next", async () => {
    await ok(["navigate", w.fixtures.url("/runaway.html")]);
    const r = await run(["evaluate", "while (true) {}", "--timeout", "3s"]);
    expect(r.json.error.code).toBe("timeout");
    expect(r.json.error.hint).toContain("was stopped");
    expect(await js("1 + 1")).toBe(2);
    await ok(["reload"]);
    expect(await js("events.length")).toBe(0);
    await ok(["navigate", w.fixtures.url("/runaway.html?again")]);
    expect(await js("location.search")).toBe("?again");
  });

  test("a click whose page handler never returns: the call ends, the script is stopped, the tab answers", async () => {
    await ok(["navigate", w.fixtures.url("/runaway.html")]);
    const r = await run(["click", "#hang", "--timeout", "3s"]);
    expect(r.json.ok).toBe(false);
    expect(r.json.error.code).toBe("timeout");
    expect(await js("events.includes('click@100,40')")).toBe(true);
    await ok(["click", "--x", "100", "--y", "150"]);
    expect(await js("events.filter((e) => e.startsWith('click'))")).toEqual(["click@100,40", "click@100,150"]);
  });

  test("a page's own debugger statements never pause it (bsk keeps breakpoints off)", async () => {
    await ok(["navigate", w.fixtures.url("/debugger-statement.html")]);
    const first = await js("ticks");
    expect(await js("new Promise((r) => setTimeout(r, 300)).then(() => ticks)")).toBeGreaterThan(first);
  });
});

describe("a page whose own timer never returns", () => {
  test("evaluate times out saying bsk stopped the page's hung script, and the next navigate works", async () => {
    await ok(["navigate", w.fixtures.url("/runaway-timer.html")]);
    // The page's timer fires 300 ms after load and never returns; this evaluate queues behind it.
    const r = await run(["evaluate", "new Promise((r) => setTimeout(r, 1000)).then(() => document.title)", "--timeout", "3s"]);
    expect(r.json.error.code).toBe("timeout");
    expect(r.json.error.data).toMatchObject({ reason: "page_script_stopped", stage: "extension", timeout_ms: 3000 });
    expect(r.json.error.hint).toContain("was stopped by bsk");
    // Sent at once, while bsk may still be recovering the tab: it must not wedge it.
    await ok(["navigate", w.fixtures.url("/runaway.html?after-timer")]);
    expect(await js("location.search")).toBe("?after-timer");
  });

  test("a navigate sent to a page its own timer already hung: bsk discards the page, says so with the tab's id, and the next navigate works", async () => {
    await ok(["navigate", w.fixtures.url("/runaway-timer.html?into")]);
    const before = (await ok(["tab", "list"])).tabs.map((t: any) => t.tab_id);
    await w.fixtures.seen("/echo-title/hanging-into");
    // The navigation waits on the hung page, and CDP reaches neither page then: no pause, no crash, only the browser.
    const r = await run(["navigate", w.fixtures.url("/runaway.html?into-hung"), "--timeout", "3s"]);
    expect(r.json.error.code).toBe("timeout");
    expect(r.json.error.data).toMatchObject({ reason: "hung_page_discarded", tab_id: before[0], stage: "extension" });
    expect(r.json.error.hint).toContain("bsk discarded it");
    const now = (await ok(["tab", "list"])).tabs.map((t: any) => t.tab_id);
    expect(now).toHaveLength(1);
    // Discarding may give the tab a new id: the reply and the session's events name it, and the session keeps the tab.
    expect(r.json.error.data.new_tab_id ?? before[0]).toBe(now[0]);
    if (now[0] !== before[0]) {
      const events = (await ok(["events", "--limit", "1000"])).events as any[];
      expect(events.find((e) => e.event === "tab.replaced")?.data).toMatchObject({ tab_id: now[0], replaced_tab_id: before[0] });
    }
    await ok(["navigate", w.fixtures.url("/runaway.html?after-hung")]);
    expect(await js("location.search")).toBe("?after-hung");
  });

  test("the person's own page (a borrowed tab) hung the same way is never discarded: borrowed_page_hung, same tab, same page", async () => {
    const chrome = (expression: string) => w.person.asExtension(expression);
    const tabId = await w.person.openInOwnWindow(w.fixtures.url("/runaway.html?lent"));
    try {
      await chrome("chrome.storage.local.set({ confirm_borrow: false })");
      await ok(["tab", "borrow", String(tabId)]);
      // The lent tab shows a page whose own timer hangs it, and a navigation then waits on it (as in the test above).
      await ok(["navigate", w.fixtures.url("/runaway-timer.html?lent"), "--tab", String(tabId)]);
      await w.fixtures.seen("/echo-title/hanging-lent");
      const r = await run(["navigate", w.fixtures.url("/runaway.html?into-lent"), "--tab", String(tabId), "--timeout", "3s"]);
      expect(r.json.error.code).toBe("timeout");
      expect(r.json.error.data).toMatchObject({ reason: "borrowed_page_hung", tab_id: tabId });
      expect(r.json.error.hint).toContain("bsk tab return");
      // Still the person's tab with their page in it: not discarded, not replaced.
      const tab = await chrome(`chrome.tabs.get(${tabId}).then((t) => ({ discarded: t.discarded, url: t.url }))`);
      expect(tab).toMatchObject({ discarded: false });
      expect(tab.url).toContain("runaway-timer.html?lent");
    } finally {
      await chrome("chrome.storage.local.set({ confirm_borrow: true })");
      await chrome(`chrome.tabs.remove(${tabId}).catch(() => {})`);
    }
  });

  test("a page showing alert() is held by the dialog, not hung: nothing stops the script that opened it", async () => {
    await ok(["navigate", w.fixtures.url("/runaway.html?dialog")]);
    const cut = await run(["evaluate", "alert('held'); window.afterAlert = 'ran'; 1"]);
    expect(cut.json.error.code).toBe("dialog_pending");
    expect(await ok(["dialog", "accept"])).toMatchObject({ accepted: true });
    expect(await js("window.afterAlert")).toBe("ran");
  });
});
