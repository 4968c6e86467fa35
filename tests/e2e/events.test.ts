/**
 * The session event stream with a real browser: console errors and failed requests from the page, 1,000 events in
 * order with coalesced counts, the service worker stopped mid-call (unknown, woken, re-attached, no gap or
 * duplicate), a crashed renderer, and `bsk events --follow`.
 */
import { expect, test } from "bun:test";
import { crashPage, evaluateInPage, evaluateInWorker, serviceWorker, stopServiceWorker } from "./devtools.ts";
import { until, useWorld, type World } from "./harness.ts";

let w: World;

useWorld({}, (world) => (w = world));

async function events(s: string, ...args: string[]): Promise<any[]> {
  return (await w.ok(["events", "--session", s, "--limit", "10000", ...args])).events;
}

/** Events are pushed by the browser as they happen; the test polls the daemon's stream for them. */
async function eventsUntil(s: string, what: string, ok: (evs: any[]) => boolean, ms = 10_000): Promise<any[]> {
  return until(
    what,
    async () => {
      const evs = await events(s);
      return ok(evs) ? evs : undefined;
    },
    ms,
  );
}

const texts = (evs: any[]) => evs.filter((e) => e.event === "console.error").map((e) => e.data.text);

function expectConsecutive(evs: any[]): void {
  expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1));
}

test("console errors and failed requests of the page are events; the browser's own note on a failed load is not an error event too", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/events.html"), "--session", s]);
  await w.ok(["evaluate", "console.error('first error'); fetch('/status/503').then((r) => r.status)", "--session", s]);
  const evs = await eventsUntil(s, "the error and the failed request", (e) =>
    e.some((x) => x.event === "request.failed" && x.data.url.endsWith("/status/503")),
  );
  expect(texts(evs)).toEqual(["first error"]);
  const failed = evs.filter((e) => e.event === "request.failed").map((e) => e.data);
  expect(failed.find((d) => d.url.endsWith("/status/503"))).toMatchObject({ status: 503, method: "GET", type: "fetch" });
  expectConsecutive(evs);

  const human = await w.bsk(["events", "--session", s, "--type", "console.error,request"]);
  expect(human.stdout).toContain("console.error  tab_id=");
  expect(human.stdout).toContain('text="first error"');
  expect(human.stdout).not.toContain("session.started");
  await w.ok(["session", "stop", s]);
}, 60_000);

test("1,000 console errors from the page arrive in order, bursts coalesced with counts that add up", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/events.html"), "--session", s]);
  // 50 errors every 20 ms: a steady burst over about 400 ms, folded into a few events.
  await w.ok(["evaluate", "burst(1000, 50, 20)", "--session", s]);
  const total = (evs: any[]) => evs.filter((e) => e.event === "console.error").reduce((n, e) => n + (e.count ?? 1), 0);
  const evs = await eventsUntil(s, "all 1,000 errors", (e) => total(e) >= 1000);
  const errors = evs.filter((e) => e.event === "console.error");
  expect(total(evs)).toBe(1000);
  expect(errors.length).toBeLessThan(100);
  expect(errors.some((e) => e.count > 1)).toBe(true);
  // In order and nothing lost: each event's text is the last error it stands for.
  let seen = 0;
  for (const e of errors) {
    seen += e.count ?? 1;
    expect(e.data.text).toBe(`e${seen - 1}`);
  }
  expectConsecutive(evs);
  const human = await w.bsk(["events", "--session", s, "--type", "console.error"]);
  expect(human.stdout).toMatch(/console\.error ×\d+/);
  await w.ok(["session", "stop", s]);
}, 60_000);

test("a burst of history pushes is coalesced: the navigations' counts add up and the last URL is the last push", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/events.html"), "--session", s]);
  await w.ok(["evaluate", "pushes(150)", "--session", s]);
  const pushed = (evs: any[]) => evs.filter((e) => e.event === "navigation" && e.data.cause === "history_state");
  const total = (evs: any[]) => pushed(evs).reduce((n, e) => n + (e.count ?? 1), 0);
  const evs = await eventsUntil(s, "all 150 pushes", (e) => total(e) >= 150);
  expect(total(evs)).toBe(150);
  // Folded, not one event per push: how many windows the burst spans depends on how fast the browser hands the
  // pushes to the worker (a loaded machine spreads them over more 250 ms windows), so the bound is the fold itself.
  expect(pushed(evs).some((e) => (e.count ?? 1) > 1)).toBe(true);
  expect(pushed(evs).length).toBeLessThan(150 / 2);
  expect(pushed(evs).at(-1).data.url).toEndWith("/events.html?p=149");
  expectConsecutive(evs);
  await w.ok(["session", "stop", s]);
}, 60_000);

test("the service worker stopped mid-call: the call is unknown; the worker wakes, reconnects within 5 s and keeps capturing", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/events.html"), "--session", s]);
  await w.ok(["evaluate", "console.error('before stop'); 1", "--session", s]);
  await eventsUntil(s, "the error before the stop", (e) => texts(e).includes("before stop"));

  // What wakes a stopped worker: the keep-alive script, registered while a session is live, pinging from its tab.
  const keepalive = (await evaluateInWorker(
    w.browser.cdpPort!,
    "chrome.scripting.getRegisteredContentScripts().then((s) => s.flatMap((x) => x.js))",
  )) as string[];
  expect(keepalive).toContain("keepalive.js");

  const inFlight = w.bsk(["evaluate", "fetch('/hold/sw-stop').then((r) => r.status)", "--session", s, "--json"]);
  await w.fixtures.seen("/hold/sw-stop");
  const stoppedAt = Date.now();
  const old = await stopServiceWorker(w.person);
  const cut = await inFlight;
  expect(cut.json).toMatchObject({
    ok: false,
    effect_state: "unknown",
    error: { code: "cdp_failed", data: { reason: "browser_gone", effect_state: "unknown" } },
  });

  // Woken (the tab's keep-alive script pings it) and connected again, with the session re-adopted.
  await until(
    "the worker to come back",
    async () => {
      const sw = await serviceWorker(w.person);
      return sw && sw.targetId !== old;
    },
    5_000,
  );
  await until("the browser to reconnect", async () => (await w.ok(["browsers"])).browsers.length === 1, 5_000);
  expect(Date.now() - stoppedAt).toBeLessThan(5_000);
  expect((await w.ok(["session", "list"])).sessions.find((x: any) => x.session_id === s)?.state).toBe("live");

  // No bsk command touches the tab: the new worker re-attached to it by itself, so the page's next error is seen.
  await evaluateInPage(w.browser.cdpPort!, "/events.html", "console.error('after restart'); 1");
  const evs = await eventsUntil(s, "the error after the restart", (e) => texts(e).includes("after restart"));
  expect(texts(evs)).toEqual(["before stop", "after restart"]);
  expect(evs.filter((e) => e.event === "call.interrupted")).toHaveLength(1);
  expectConsecutive(evs);

  // The interrupted evaluate was not redone by the new worker: the page made one request for it.
  w.fixtures.release("sw-stop");
  await w.ok(["session", "stop", s]);
}, 60_000);

test("a crashed renderer fails the tab's call in flight (renderer_crashed, effect unknown) and is an event; reload brings it back", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/events.html?crash"), "--session", s]);
  const inFlight = w.bsk(["evaluate", "fetch('/hold/crash').then((r) => r.status)", "--session", s, "--json"]);
  await w.fixtures.seen("/hold/crash");
  await crashPage(w.browser.cdpPort!, "/events.html?crash");
  const cut = await inFlight;
  expect(cut.json).toMatchObject({
    ok: false,
    effect_state: "unknown",
    error: { code: "cdp_failed", data: { reason: "renderer_crashed" } },
  });
  expect(cut.json.error.hint).toContain("reload");
  await eventsUntil(s, "tab.crashed", (e) => e.some((x) => x.event === "tab.crashed"));

  const snap = await w.bsk(["snapshot", "--session", s, "--json"]);
  expect(snap.json.error).toMatchObject({ code: "cdp_failed", data: { reason: "renderer_crashed" } });
  await w.ok(["reload", "--session", s]);
  expect((await w.ok(["evaluate", "document.title", "--session", s])).value).toBe("Events fixture");
  w.fixtures.release("crash");
  await w.ok(["session", "stop", s]);
}, 60_000);

test("bsk events --follow prints each new event as one line until the session ends", async () => {
  const s = await w.startSession();
  const proc = Bun.spawn([`${import.meta.dir}/../../dist/bsk`, "events", "--session", s, "--follow", "--json"], {
    env: w.env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: any[] = [];
  const reader = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    const stream = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    for (let r = await stream.read(); !r.done; r = await stream.read()) {
      buf += dec.decode(r.value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        lines.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    }
  })();
  await until("the backlog to stream", () => lines.some((l) => l.event === "session.started"));
  await w.ok(["navigate", w.fixtures.url("/events.html"), "--session", s]);
  await w.ok(["evaluate", "console.error('followed'); 1", "--session", s]);
  await until("the followed error", () => lines.some((l) => l.event === "console.error" && l.data.text === "followed"));
  await w.ok(["session", "stop", s]);
  expect(await proc.exited).toBe(0);
  await reader;
  expect(lines.at(-1)).toMatchObject({ event: "session.ended", session_id: s, data: { reason: "stopped" } });
  expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
}, 60_000);

test("session start --observe streams DOM summaries, the page's WebSockets, visibility and performance entries", async () => {
  const s = await w.startSession(["--observe", "dom,sockets", "--observe", "visibility,perf"]);
  await w.ok(["navigate", w.fixtures.url("/events.html"), "--session", s]);
  const first = (await w.ok(["tab", "list", "--session", s])).current_tab_id;
  await w.ok([
    "evaluate",
    "document.body.append(document.createElement('p'), document.createElement('p')); new WebSocket('ws://127.0.0.1:9/'); fetch('/echo-title/perf').then((r) => r.status)",
    "--session",
    s,
  ]);
  // Another tab in front hides the first one.
  await w.ok(["tab", "create", w.fixtures.url("/echo-title/second"), "--session", s]);
  const fetched = (e: any) => e.event === "perf" && e.data.entry_type === "resource" && e.data.name.endsWith("/echo-title/perf");
  const evs = await eventsUntil(
    s,
    "every observed kind",
    (e) => ["dom.mutations", "socket.opened", "socket.closed", "visibility"].every((k) => e.some((x) => x.event === k)) && e.some(fetched),
  );
  const of = (k: string) => evs.filter((e) => e.event === k).map((e) => e.data);
  expect(of("dom.mutations").reduce((n, d) => n + d.added, 0)).toBeGreaterThanOrEqual(2);
  expect(of("socket.opened")[0]).toMatchObject({ tab_id: first, url: "ws://127.0.0.1:9/" });
  expect(of("socket.closed")[0]).toMatchObject({ url: "ws://127.0.0.1:9/" });
  expect(of("visibility")).toContainEqual(expect.objectContaining({ tab_id: first, state: "hidden" }));
  expect(of("perf").map((d) => d.entry_type)).toContain("navigation");
  const sockets = await w.ok(["events", "--session", s, "--type", "socket"]);
  expect(sockets.events.every((e: any) => e.event.startsWith("socket."))).toBe(true);
  await w.ok(["session", "stop", s]);
}, 60_000);

test("without --observe none of those streams is recorded", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/events.html"), "--session", s]);
  await w.ok([
    "evaluate",
    "document.body.append(document.createElement('p')); new WebSocket('ws://127.0.0.1:9/'); console.error('marker'); 1",
    "--session",
    s,
  ]);
  const evs = await eventsUntil(s, "the marker error", (e) => texts(e).includes("marker"));
  expect(evs.filter((e) => /^(dom|socket|visibility|perf)/.test(e.event))).toEqual([]);
  await w.ok(["session", "stop", s]);
}, 60_000);

test("a navigation the page's script asks for is cause script, a click on a link is cause link", async () => {
  const s = await w.startSession();
  await w.ok(["navigate", w.fixtures.url("/events.html?from=start"), "--session", s]);
  await w.ok(["evaluate", `setTimeout(() => { location.href = "/events.html?by=script"; }, 0); 1`, "--session", s]);
  await w.ok(["wait-for", "--url", "by=script", "--session", s]);
  await w.ok([
    "evaluate",
    `const a = document.createElement("a"); a.href = "/events.html?by=link"; a.id = "go"; a.textContent = "go"; document.body.prepend(a); 1`,
    "--session",
    s,
  ]);
  await w.ok(["click", "#go", "--session", s]);
  const navs = (evs: any[]) => evs.filter((e) => e.event === "navigation");
  const evs = await eventsUntil(s, "both navigations", (e) => navs(e).some((n) => n.data.url.includes("by=link")));
  const causeOf = (marker: string) => navs(evs).find((n) => n.data.url.includes(marker))?.data.cause as string;
  expect(causeOf("by=script").split("+")[0]).toBe("script");
  expect(causeOf("by=link").split("+")[0]).toBe("link");
  await w.ok(["session", "stop", s]);
}, 60_000);
