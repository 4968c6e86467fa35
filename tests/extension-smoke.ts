/**
 * End-to-end smoke test of the built extension against a scripted minimal daemon, without the real daemon or CLI.
 *
 *   npx wxt build extension && bun tests/extension-smoke.ts
 *
 * Starts the fixture site and a WebSocket server on a free port at /extension that answers the handshake, launches
 * headless Chromium with extension/.output/chrome-mv3 through connect.html?port=..., then drives every extension
 * method and checks the answers and events. The person's side (their own tabs, closing a window) goes through the
 * browser's DevTools port. Prints one line per check and exits non-zero on any failure.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ServerWebSocket } from "bun";
import { getMethod } from "../protocol/catalog.ts";
import { EXTENSION_ID } from "../protocol/extension-identity.ts";
import { randomBase64url } from "../protocol/trust.ts";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import { homePaths } from "../shared/home.ts";
import { daemonProof } from "../daemon/trust/proofs.ts";
import { ensureSecret } from "../daemon/trust/secret.ts";
import { startFixtureServer } from "../scripts/fixture-server.ts";
import { Person } from "./e2e/person.ts";
import { tempDir } from "./temp.ts";

const ROOT = join(import.meta.dir, "..");
const EXT = process.env.EXT_DIR ?? join(ROOT, "extension/.output/chrome-mv3");
const LAUNCH = "/work/shared/e2e/chromium-with-extension.sh";

type Frame = Record<string, any>;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
let failures = 0;
function check(what: string, ok: boolean, detail?: unknown) {
  if (!ok) failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || detail === undefined ? "" : ` — ${JSON.stringify(detail)}`}`);
}

// ---- a minimal daemon -------------------------------------------------------------------------------------
let peer: ServerWebSocket<unknown> | null = null;
let nextId = 0;
const pending = new Map<string, (f: Frame) => void>();
const events: Frame[] = [];
const eventWaiters: { pred: (e: Frame) => boolean; resolve: (e: Frame) => void }[] = [];
const handshakes: Frame[] = [];
let heartbeats = 0;
/** While true the "daemon" refuses WebSocket upgrades, as if it were not running. */
let down = false;
let attempts = 0;
let handshakeReply: (req: Frame) => Frame = (req) => ({
  id: req.id,
  result: {
    server: "bsk-daemon",
    version: "0.0.0-smoke",
    protocol_version: PROTOCOL_VERSION,
    skew: false,
    heartbeat_ms: 2000,
    adopted: [],
    ended: [],
  },
});
let connected: () => void = () => {};
let origin = "";

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req, srv) {
    if (new URL(req.url).pathname !== "/extension") return new Response("no", { status: 404 });
    attempts++;
    if (down) return new Response("down", { status: 503 });
    origin = req.headers.get("origin") ?? "";
    return srv.upgrade(req, { data: undefined }) ? undefined : new Response("upgrade failed", { status: 400 });
  },
  websocket: {
    open(ws) {
      peer = ws;
    },
    message(ws, data) {
      const f = JSON.parse(String(data)) as Frame;
      // The extension trusts only a daemon that proves this home's secret (protocol/trust.ts).
      if (f.method === "system.hello") {
        const nonces = { port: server.port!, nonceE: f.params.nonce, nonceD: randomBase64url(32) };
        const proof = daemonProof(secret.bytes, nonces);
        ws.send(JSON.stringify({ id: f.id, result: { nonce: nonces.nonceD, proof } }));
      } else if (f.method === "system.handshake") {
        handshakes.push(f);
        ws.send(JSON.stringify(handshakeReply(f)));
        connected();
      } else if (f.event) {
        if (f.event === "system.heartbeat") return void heartbeats++;
        events.push(f);
        for (const w of eventWaiters.splice(0)) w.pred(f) ? w.resolve(f) : eventWaiters.push(w);
      } else if (f.id !== undefined) {
        pending.get(String(f.id))?.(f);
      }
    },
    close(ws) {
      if (peer === ws) peer = null;
    },
  },
});

function call(method: string, params: object = {}, meta: object = { timeout_ms: 15_000 }): Promise<Frame> & { id: string } {
  const id = `x${++nextId}`;
  const p = new Promise<Frame>((resolve) => pending.set(id, resolve)) as Promise<Frame> & { id: string };
  p.id = id;
  peer!.send(JSON.stringify({ id, method, params, meta }));
  return p;
}

async function ok(method: string, params: object = {}): Promise<any> {
  const r = await call(method, params);
  if (r.error) throw new Error(`${method} ${JSON.stringify(params)} failed: ${JSON.stringify(r.error)}`);
  const schema = getMethod(method as never).result();
  const valid = schema.safeParse(r.result);
  if (!valid.success) check(`${method} result matches its schema`, false, valid.error.issues[0]);
  return r.result;
}

function waitEvent(pred: (e: Frame) => boolean, ms = 5000): Promise<Frame> {
  const seen = events.find(pred);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    eventWaiters.push({ pred, resolve });
    setTimeout(() => reject(new Error("event did not come")), ms);
  });
}

function nextConnection(ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    connected = resolve;
    setTimeout(() => reject(new Error("the extension did not (re)connect")), ms);
  });
}

let cdpPort = 0;
/** Evaluates in one of the extension's own pages (it has chrome.* there) through the DevTools port. */
async function pageEval(urlPart: string, expression: string): Promise<unknown> {
  const targets = (await (await fetch(`http://127.0.0.1:${cdpPort}/json/list`)).json()) as { url: string; webSocketDebuggerUrl: string }[];
  const target = targets.find((t) => t.url.includes(urlPart));
  if (!target) throw new Error(`no page ${urlPart}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve) => (ws.onopen = resolve));
  const reply = await new Promise<any>((resolve) => {
    ws.onmessage = (ev) => resolve(JSON.parse(String(ev.data)));
    ws.send(JSON.stringify({ id: 1, method: "Runtime.evaluate", params: { expression, awaitPromise: true, returnByValue: true } }));
  });
  ws.close();
  if (reply.result?.exceptionDetails) throw new Error(JSON.stringify(reply.result.exceptionDetails));
  return reply.result?.result?.value;
}

// ---- the run -----------------------------------------------------------------------------------------------
const fixtures = startFixtureServer();
const url = fixtures.url;
const profile = tempDir("bsk-smoke-");
// A home of its own whose secret the extension fetches through native messaging, registered for this profile only.
const home = tempDir("bsk-smoke-home-");
const secret = ensureSecret(homePaths(home).secret, home);
Bun.spawnSync([process.execPath, join(ROOT, "cli/main.ts"), "native", "install", "--profile-dir", profile], {
  env: { ...process.env, BSK_HOME: home },
});
const firstConnection = nextConnection(15_000);
const launched = Bun.spawnSync(
  ["bash", LAUNCH, EXT, profile, `chrome-extension://${EXTENSION_ID}/connect.html?port=${server.port}&label=smoke`],
  { env: { ...process.env, CDP_PORT: "0" } },
);
const pid = Number(String(launched.stdout).trim());
if (!pid) {
  console.error(String(launched.stderr));
  process.exit(1);
}
let person: Person | undefined;

try {
  await firstConnection;
  const hs = handshakes[0]!;
  check("origin is the pinned extension id", origin === `chrome-extension://${EXTENSION_ID}`, origin);
  check("handshake params match the catalog", getMethod("system.handshake").params().safeParse(hs.params).success, hs.params);
  check("handshake carries label and protocol", hs.params.label === "smoke" && hs.params.protocol_version === PROTOCOL_VERSION, hs.params);

  for (let i = 0; i < 100 && !existsSync(join(profile, "DevToolsActivePort")); i++) await Bun.sleep(50);
  cdpPort = Number(readFileSync(join(profile, "DevToolsActivePort"), "utf8").split("\n")[0]);
  person = await Person.connect(cdpPort);
  let connectTitle = "";
  for (let i = 0; i < 40 && connectTitle !== "bsk: connected"; i++) {
    connectTitle = (await person.pages()).find((p) => p.url.includes("connect.html"))?.title ?? "";
    if (connectTitle !== "bsk: connected") await Bun.sleep(50);
  }
  check("connect page says connected", connectTitle === "bsk: connected", connectTitle);

  // Session and navigation
  const a = await ok("session.open", { session_id: "aaaa", name: "smoke", focus: false, width: 1000, height: 700 });
  check("session.open gives window and tab", a.window_id > 0 && a.tab_id > 0, a);
  let list = await ok("tab.list", { session_id: "aaaa" });
  check("one owned created current tab", list.tabs.length === 1 && list.tabs[0].ownership === "created" && list.tabs[0].current, list);

  const nav = await ok("navigate", { session_id: "aaaa", url: url("/shop.html") });
  check("navigate → 200 Tiny Shop", nav.status === 200 && nav.title === "Tiny Shop" && nav.navigated && nav.url === url("/shop.html"), nav);
  const r404 = await ok("navigate", { session_id: "aaaa", url: url("/status/404"), wait_until: "commit" });
  check("navigate reports 404", r404.status === 404, r404);
  for (const wait_until of ["domcontentloaded", "networkidle", "load"]) {
    const t0 = performance.now();
    const r = await ok("navigate", { session_id: "aaaa", url: url(`/echo-title/${wait_until}`), wait_until });
    check(`navigate wait_until ${wait_until} (${Math.round(performance.now() - t0)} ms)`, r.title === wait_until, r);
  }

  const back = await ok("navigate.back", { session_id: "aaaa" });
  check("back → networkidle page", back.navigated && back.title === "networkidle", back);
  const fwd = await ok("navigate.forward", { session_id: "aaaa" });
  check("forward → load page", fwd.navigated && fwd.title === "load", fwd);
  const noFwd = await ok("navigate.forward", { session_id: "aaaa" });
  check("forward at the end → navigated:false", noFwd.navigated === false, noFwd);
  const rel = await ok("reload", { session_id: "aaaa", hard: true });
  check("reload --hard", rel.navigated && rel.title === "load" && rel.status === 200, rel);

  const failed = await call("navigate", { session_id: "aaaa", url: "http://127.0.0.1:1/" });
  check(
    "unreachable → cdp_failed navigation_failed",
    failed.error?.code === "cdp_failed" && failed.error?.data?.reason === "navigation_failed",
    failed,
  );
  check("replies carry meta.timings.extension", typeof failed.meta?.timings?.extension === "number", failed.meta);
  const recovered = await ok("navigate", { session_id: "aaaa", url: url("/echo-title/load") });
  check("navigate works again after an error page", recovered.title === "load", recovered);

  // evaluate
  const title = await ok("evaluate", { session_id: "aaaa", expression: "document.title" });
  check("evaluate document.title", title.value === "load" && title.type === "string", title);
  const obj = await ok("evaluate", { session_id: "aaaa", expression: "Promise.resolve({a: [1, 'x']})" });
  check("evaluate awaits promises", JSON.stringify(obj.value) === '{"a":[1,"x"]}' && obj.type === "object", obj);
  const undef = await ok("evaluate", { session_id: "aaaa", expression: "undefined" });
  check("undefined → null", undef.value === null && undef.type === "undefined", undef);
  const thrown = await call("evaluate", { session_id: "aaaa", expression: "throw new Error('boom')" });
  check(
    "throw → evaluation_failed with the JS error",
    thrown.error?.code === "evaluation_failed" && /boom/.test(thrown.error?.data?.exception) && !!thrown.error?.hint,
    thrown,
  );

  // wait_for
  const already = await ok("wait_for", { session_id: "aaaa", url: "*/echo-title/load" });
  check("wait_for url already matching", already.matched === "url", already);
  await ok("evaluate", {
    session_id: "aaaa",
    expression: `setTimeout(() => location.href = ${JSON.stringify(url("/echo-title/Three"))}, 50); 1`,
  });
  const waited = await ok("wait_for", { session_id: "aaaa", navigation: true });
  check("wait_for navigation", waited.matched === "navigation" && waited.title === "Three", waited);
  await ok("evaluate", { session_id: "aaaa", expression: `setTimeout(() => history.pushState({}, "", "/spa/route"), 50); 1` });
  const spa = await ok("wait_for", { session_id: "aaaa", url: "/\\/spa\\/route$/" });
  check("wait_for regex on a same-document navigation", spa.url.endsWith("/spa/route"), spa);
  const timedOut = await call("wait_for", { session_id: "aaaa", url: "/never-matches/" }, { timeout_ms: 300 });
  check("wait_for deadline → timeout", timedOut.error?.code === "timeout", timedOut);

  // cancel
  const slow = call("wait_for", { session_id: "aaaa", url: "never" });
  await Bun.sleep(100);
  const cancel = await call("cancel", { id: slow.id });
  const slowReply = await slow;
  check("cancel answers cancelled:true", cancel.result?.cancelled === true, cancel);
  check("cancelled call answers cancelled", slowReply.error?.code === "cancelled", slowReply);
  const cancelNone = await call("cancel", { id: "nope" });
  check("cancel of nothing → cancelled:false", cancelNone.result?.cancelled === false, cancelNone);

  // malformed and unknown
  const unknown = await call("no.such.method", { session_id: "aaaa" });
  check("unknown method → unknown_method", unknown.error?.code === "unknown_method", unknown);
  const invalid = await call("navigate", { session_id: "aaaa" });
  check("missing url → invalid_params", invalid.error?.code === "invalid_params", invalid);
  const noSession = await call("tab.list", { session_id: "zzzz" });
  check("unknown session → not_found", noSession.error?.code === "not_found", noSession);

  // restricted URLs
  for (const bad of ["chrome://settings", "chrome-extension://abc/x.html", "https://chromewebstore.google.com/detail/x", "about:version"]) {
    const r = await call("navigate", { session_id: "aaaa", url: bad });
    check(`navigate ${bad} → restricted_url`, r.error?.code === "permission_denied" && r.error?.data?.reason === "restricted_url", r.error);
  }
  const rc = await call("tab.create", { session_id: "aaaa", url: "chrome://version" });
  check("tab.create chrome:// → restricted_url", rc.error?.data?.reason === "restricted_url", rc.error);

  // tabs
  const second = await ok("tab.create", { session_id: "aaaa", url: url("/echo-title/Second") });
  check(
    "tab.create in the Agent Window, current",
    second.window_id === a.window_id && second.current && second.ownership === "created",
    second,
  );
  await waitEvent((e) => e.event === "tab.opened" && e.payload.tab_id === second.tab_id);
  check("tab.opened event for the created tab", true);
  await ok("tab.select", { session_id: "aaaa", tab_id: a.tab_id });
  const t1 = await ok("evaluate", { session_id: "aaaa", expression: "location.pathname" });
  check("tab.select makes it current", t1.tab_id === a.tab_id, t1);
  await ok("navigate", { session_id: "aaaa", tab_id: second.tab_id, url: url("/echo-title/Second"), wait_until: "load" });
  const t2 = await ok("evaluate", { session_id: "aaaa", tab_id: second.tab_id, expression: "document.title" });
  check("explicit tab_id", t2.value === "Second", t2);

  // popups and _blank links become owned
  await ok("navigate", { session_id: "aaaa", url: url("/popup-opener.html") });
  await ok("evaluate", { session_id: "aaaa", expression: "document.getElementById('open').click()" });
  const opened = await waitEvent((e) => e.event === "tab.opened" && e.payload.opener_tab_id === a.tab_id);
  list = await ok("tab.list", { session_id: "aaaa" });
  const popup = list.tabs.find((t: any) => t.tab_id === opened.payload.tab_id);
  check("window.open popup is owned 'opened'", popup?.ownership === "opened", { opened, list });
  await ok("wait_for", { session_id: "aaaa", tab_id: opened.payload.tab_id, url: "*Popup*" });
  const popTitle = await ok("evaluate", { session_id: "aaaa", tab_id: opened.payload.tab_id, expression: "document.title" });
  check("evaluate in the popup", popTitle.value === "Popup child", popTitle);
  await ok("evaluate", { session_id: "aaaa", expression: "document.getElementById('blank').click()" });
  const blank = await waitEvent(
    (e) => e.event === "tab.opened" && e.payload.tab_id !== opened.payload.tab_id && e.payload.opener_tab_id === a.tab_id,
  );
  check("target=_blank tab is owned", !!blank, blank);

  // the person's tab and another session's tab
  await person.openTab(url("/echo-title/person-tab"));
  let personTab: any;
  for (let i = 0; i < 40 && !personTab; i++) {
    personTab = (await ok("tab.list", { session_id: "aaaa", scope: "user" })).tabs.find((t: any) => t.url.includes("person-tab"));
    if (!personTab) await Bun.sleep(50);
  }
  check(
    "person's tab listed as person",
    personTab?.owner === "person" && personTab.ownership === undefined,
    personTab ?? (await ok("tab.list", { session_id: "aaaa", scope: "all" })),
  );
  for (const [method, extra] of [
    ["evaluate", { expression: "document.cookie" }],
    ["navigate", { url: url("/") }],
    ["wait_for", { url: "x" }],
  ] as const) {
    const r = await call(method, { session_id: "aaaa", tab_id: personTab.tab_id, ...extra });
    check(
      `${method} on the person's tab → agent_window_scope`,
      r.error?.code === "permission_denied" && r.error?.data?.reason === "agent_window_scope",
      r.error,
    );
  }
  const closeP = await call("tab.close", { session_id: "aaaa", tab_id: personTab.tab_id });
  check("tab.close on the person's tab refused", closeP.error?.code === "permission_denied", closeP.error);
  const b = await ok("session.open", { session_id: "bbbb", focus: false });
  for (const method of ["evaluate", "tab.select", "tab.close"]) {
    const r = await call(method, { session_id: "aaaa", tab_id: b.tab_id, expression: "1" });
    check(
      `${method} on another session's tab refused without naming it`,
      r.error?.code === "permission_denied" && !JSON.stringify(r.error).includes("bbbb"),
      r.error,
    );
  }
  const all = await ok("tab.list", { session_id: "aaaa", scope: "all" });
  const bInfo = all.tabs.find((t: any) => t.tab_id === b.tab_id);
  check("tab.list all: other_session, no owner id", bInfo?.owner === "other_session" && bInfo.owner_session_id === undefined, bInfo);
  const missing = await call("evaluate", { session_id: "aaaa", tab_id: 987654321, expression: "1" });
  check("unknown tab id → not_found", missing.error?.code === "not_found", missing.error);

  // closing tabs, current fallback
  await ok("tab.select", { session_id: "aaaa", tab_id: second.tab_id });
  const closed = await ok("tab.close", { session_id: "aaaa" });
  check(
    "tab.close current → falls back to the previous current",
    closed.closed_tab_id === second.tab_id && closed.current_tab_id === a.tab_id,
    closed,
  );
  await waitEvent((e) => e.event === "tab.closed" && e.payload.tab_id === second.tab_id);
  check("tab.closed event", true);

  // Heartbeat-free reconnect: the daemon restarts; the extension reports its sessions again.
  const again = nextConnection();
  handshakeReply = (req) => ({
    id: req.id,
    result: {
      server: "bsk-daemon",
      version: "0.0.0-smoke",
      protocol_version: PROTOCOL_VERSION,
      skew: false,
      heartbeat_ms: 2000,
      adopted: ["aaaa"],
      ended: [{ session_id: "bbbb", reason: "not_readopted" }],
    },
  });
  peer!.close();
  await again;
  const re = handshakes
    .at(-1)!
    .params.sessions.map((s: any) => s.session_id)
    .sort();
  check("re-handshake reports live sessions", JSON.stringify(re) === '["aaaa","bbbb"]', handshakes.at(-1)!.params.sessions);
  let bGone = false;
  for (let i = 0; i < 40 && !bGone; i++) {
    bGone = (await call("tab.list", { session_id: "bbbb" })).error?.code === "not_found";
    if (!bGone) await Bun.sleep(50);
  }
  check("a session the daemon ended is closed", bGone);

  // session.close closes owned tabs (including popups) one by one
  const aTabs = (await ok("tab.list", { session_id: "aaaa" })).tabs.map((t: any) => t.tab_id).sort();
  const closedA = await ok("session.close", { session_id: "aaaa", reason: "stopped" });
  check("session.close closes every owned tab", JSON.stringify(closedA.closed_tab_ids.sort()) === JSON.stringify(aTabs), {
    closedA,
    aTabs,
  });
  const pagesLeft = await person.pages();
  check(
    "popup and agent pages are gone",
    !pagesLeft.some((p) => p.url.includes("Popup") || p.url.includes("popup-opener")),
    pagesLeft.map((p) => p.url),
  );
  check(
    "the person's tab survives",
    pagesLeft.some((p) => p.url.includes("person-tab")),
  );

  // the person closes an Agent Window
  await ok("session.open", { session_id: "cccc", focus: false });
  await ok("navigate", { session_id: "cccc", url: url("/echo-title/close-me") });
  await person.closePagesMatching("close-me");
  const ended = await waitEvent((e) => e.event === "session.ended" && e.payload.session_id === "cccc");
  check("closing the Agent Window → session.ended window_closed", ended.payload.reason === "window_closed", ended);
  const gone = await call("evaluate", { session_id: "cccc", expression: "1" });
  check("its session is forgotten", gone.error?.code === "not_found", gone.error);

  // a person's tab dragged into an Agent Window is not owned and survives session.close
  const d = await ok("session.open", { session_id: "dddd", focus: false });
  await person.openTab(url("/echo-title/dragged"));
  let dragged: any;
  for (let i = 0; i < 40 && !dragged; i++) {
    dragged = (await ok("tab.list", { session_id: "dddd", scope: "user" })).tabs.find((t: any) => t.url.includes("dragged"));
    if (!dragged) await Bun.sleep(50);
  }
  const movedTo = await pageEval(
    "connect.html",
    `chrome.tabs.move(${dragged.tab_id}, { windowId: ${d.window_id}, index: -1 }).then((t) => t.windowId)`,
  );
  check("person's tab moved into the Agent Window", movedTo === d.window_id, movedTo);
  const dOwned = (await ok("tab.list", { session_id: "dddd" })).tabs.map((t: any) => t.tab_id);
  check("a dragged-in tab is not owned", !dOwned.includes(dragged.tab_id), dOwned);
  const onDragged = await call("evaluate", { session_id: "dddd", tab_id: dragged.tab_id, expression: "1" });
  check("a dragged-in tab is refused", onDragged.error?.data?.reason === "agent_window_scope", onDragged.error);
  await ok("session.close", { session_id: "dddd", reason: "done" });
  check(
    "the dragged-in tab survives session.close",
    (await person.pages()).some((p) => p.url.includes("dragged")),
  );

  // the popup shows the state and stops a session
  await ok("session.open", { session_id: "eeee", name: "popup test", focus: false });
  await person.openTab(`chrome-extension://${EXTENSION_ID}/popup.html`);
  let popupText = "";
  for (let i = 0; i < 40 && !popupText.includes("eeee"); i++) {
    popupText = String(await pageEval("popup.html", "document.body.innerText").catch(() => ""));
    if (!popupText.includes("eeee")) await Bun.sleep(50);
  }
  check(
    "popup shows Connected, versions and the session",
    /Connected/.test(popupText) && popupText.includes("0.0.0-smoke") && popupText.includes("eeee") && popupText.includes("popup test"),
    popupText,
  );
  await pageEval("popup.html", `[...document.querySelectorAll("button")].find((b) => b.textContent.trim() === "Stop").click()`);
  const stopped = await waitEvent((e) => e.event === "session.ended" && e.payload.session_id === "eeee");
  check("popup Stop → session.ended stopped_by_person", stopped.payload.reason === "stopped_by_person", stopped);
  const stored = (await pageEval("connect.html", "chrome.storage.session.get(null)")) as any;
  check(
    "storage.session holds connection and sessions",
    stored?.connection?.state === "connected" && stored?.sessions && !stored.sessions.eeee,
    stored,
  );

  // the service worker is stopped (as Chromium does after 30 s idle) and wakes up again: sessions and the
  // debugger attachment are taken back from storage.session
  handshakeReply = (req) => ({
    id: req.id,
    result: {
      server: "bsk-daemon",
      version: "0.0.0-smoke",
      protocol_version: PROTOCOL_VERSION,
      skew: false,
      heartbeat_ms: 2000,
      adopted: ["ffff"],
      ended: [],
    },
  });
  const f = await ok("session.open", { session_id: "ffff", focus: false });
  await ok("navigate", { session_id: "ffff", url: url("/echo-title/before-restart") });
  const navEvent = await waitEvent(
    (e) => e.event === "navigation" && e.payload.session_id === "ffff" && e.payload.url.includes("before-restart"),
  );
  check("navigation event with a cause", typeof navEvent.payload.cause === "string", navEvent.payload);
  check("heartbeats arrive", heartbeats > 0, heartbeats);
  const sw = (await person.send("Target.getTargets")).targetInfos.find(
    (t: any) => t.type === "service_worker" && t.url.includes(EXTENSION_ID),
  );
  const woke = nextConnection();
  await person.send("Target.closeTarget", { targetId: sw.targetId });
  for (let i = 0; i < 100 && peer; i++) await Bun.sleep(20);
  check("stopping the worker closes the socket", peer === null);
  await person.openTab(`chrome-extension://${EXTENSION_ID}/connect.html?port=${server.port}&label=smoke&close=1`);
  await woke;
  let closedItself = false;
  for (let i = 0; i < 40 && !closedItself; i++) {
    closedItself = !(await person.pages()).some((p) => p.url.includes("close=1"));
    if (!closedItself) await Bun.sleep(50);
  }
  check("connect.html&close=1 closes itself once connected", closedItself);
  const reported = handshakes.at(-1)!.params.sessions.find((x: any) => x.session_id === "ffff");
  check(
    "a woken worker reports its sessions",
    reported?.window_id === f.window_id && reported.current_tab_id === f.tab_id,
    handshakes.at(-1)!.params,
  );
  const afterWake = await call("evaluate", { session_id: "ffff", expression: "document.title" });
  check("the debugger attachment survives a worker restart", afterWake.result?.value === "before-restart", afterWake);
  await person.closePagesMatching("before-restart");
  const endedAfterWake = await waitEvent((e) => e.event === "session.ended" && e.payload.session_id === "ffff");
  check("window close is still noticed after a restart", endedAfterWake.payload.reason === "window_closed", endedAfterWake);

  // backoff: with the daemon gone, attempts come at 250 ms, 500 ms, 1 s, then every 2 s (not a tight loop)
  down = true;
  attempts = 0;
  peer!.close();
  await Bun.sleep(4000);
  check("reconnect backs off (250 ms doubling to 2 s)", attempts >= 3 && attempts <= 6, attempts);
  const back2 = nextConnection(5000);
  down = false;
  await back2;
  check("reconnects when the daemon is back", true);

  // version skew: a daemon that refuses our protocol
  const refused = nextConnection();
  handshakeReply = (req) => ({ id: req.id, error: { code: "version_too_old", message: "protocol 9.0 cannot talk to protocol 1.0" } });
  peer!.close();
  await refused;
  const before = handshakes.length;
  await Bun.sleep(3000);
  check("after version_too_old the extension does not hammer", handshakes.length === before, handshakes.length - before);
  const skew = (await pageEval("connect.html", "chrome.storage.session.get('connection')")) as any;
  check("state is version_skew", skew?.connection?.state === "version_skew", skew);
} catch (err) {
  check("run", false, String(err));
} finally {
  person?.close();
  process.kill(pid);
  server.stop(true);
  fixtures.stop();
  for (let i = 0; i < 100 && isAlive(pid); i++) await Bun.sleep(50);
  rmSync(profile, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}
console.log(failures ? `${failures} check(s) failed` : "all checks passed");
process.exit(failures ? 1 : 0);
