/**
 * `npm run bench -- --hops`: where one call's time goes inside the extension. Over the browser's DevTools socket it
 * wraps, in bsk's service worker, every chrome.* API the call path awaits (chrome.debugger.sendCommand with its CDP
 * method, tabs, windows, scripting, storage), then runs each call through a long-lived `bsk mcp` and prints when each
 * API call started (ms after a mark set just before the request goes out) and how long it took, and when each frame
 * to the daemon left the worker (the call's reply among them), and the worker's own waits it tells of
 * (extension/src/shared/hop-mark.ts: an action held until the daemon's ledger has synced its op). The
 * wrappers cost a little each, so read the shape (what runs one after another, what overlaps), not the totals.
 * A full `npm run bench` keeps what it printed as the `hops` section of bench/results.json.
 */
import { join } from "node:path";
import { EXTENSION_ID } from "../../protocol/extension-identity.ts";
import { launchChromium } from "../chromium.ts";
import { privateWorld, ROOT } from "../world.ts";
import { McpLane } from "./mcp.ts";

/** Installed in the service worker: each wrapped call pushes [what, started at, took] into globalThis.__bskHops. */
const INSTALL = `(() => {
  globalThis.__bskHops = [];
  globalThis.__bskHopsT0 = performance.now();
  const wrap = (obj, name, label) => {
    const orig = obj?.[name];
    if (typeof orig !== "function" || orig.__bskHops) return;
    const wrapped = function (...args) {
      const t = performance.now();
      const what = label === "debugger.sendCommand" ? "cdp " + args[1] : label;
      const done = (suffix) => () => __bskHops.push([what + suffix, t - __bskHopsT0, performance.now() - t]);
      const r = orig.apply(this, args);
      if (r && typeof r.then === "function") r.then(done(""), done(" (failed)"));
      return r;
    };
    wrapped.__bskHops = true;
    obj[name] = wrapped;
  };
  const apis = {
    debugger: ["sendCommand", "attach"],
    tabs: ["get", "query", "create", "update", "group", "sendMessage"],
    windows: ["get", "getAll", "create", "update"],
    scripting: ["executeScript", "registerContentScripts", "unregisterContentScripts"],
    tabGroups: ["get", "query", "update"],
  };
  for (const [ns, fns] of Object.entries(apis)) for (const fn of fns) wrap(chrome[ns], fn, ns + "." + fn);
  // Frames the worker sends to the daemon: when a call's reply (or its events) went out.
  const send = WebSocket.prototype.send;
  if (!send.__bskHops) {
    WebSocket.prototype.send = function (data) {
      const head = typeof data === "string" ? data.slice(0, 40) : "binary";
      __bskHops.push(["ws.send " + head, performance.now() - __bskHopsT0, 0]);
      return send.call(this, data);
    };
    WebSocket.prototype.send.__bskHops = true;
  }
  for (const area of ["session", "local"]) for (const fn of ["get", "set"]) wrap(chrome.storage[area], fn, "storage." + area + "." + fn);
  return true;
})()`;

type Hop = [what: string, at: number, took: number];

/** One call as the last round saw it: its time through `bsk mcp` and its hops, [what, started at ms, took ms]. */
export interface HopCall {
  tool: string;
  ms: number;
  hops: Hop[];
}

class ServiceWorker {
  private nextId = 0;
  private readonly pending = new Map<number, (v: any) => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.onmessage = (ev) => {
      const m = JSON.parse(String(ev.data));
      this.pending.get(m.id)?.(m);
      this.pending.delete(m.id);
    };
  }

  static async attach(cdpPort: number): Promise<ServiceWorker> {
    const list = (await (await fetch(`http://127.0.0.1:${cdpPort}/json/list`)).json()) as any[];
    const sw = list.find((t) => t.type === "service_worker" && String(t.url).includes(EXTENSION_ID));
    if (!sw) throw new Error("bsk's service worker is not running");
    const ws = new WebSocket(sw.webSocketDebuggerUrl);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error("could not attach to bsk's service worker"));
    });
    return new ServiceWorker(ws);
  }

  evaluate(expression: string): Promise<any> {
    const id = ++this.nextId;
    this.ws.send(JSON.stringify({ id, method: "Runtime.evaluate", params: { expression, returnByValue: true, awaitPromise: true } }));
    return new Promise((resolve) => this.pending.set(id, resolve)).then((m: any) => m.result?.result?.value);
  }

  close(): void {
    this.ws.close();
  }
}

export async function hops(): Promise<HopCall[]> {
  const out: HopCall[] = [];
  const world = await privateWorld("bsk-bench-hops");
  try {
    await world.startDaemon();
    await world.trustProfile();
    world.browser = await launchChromium({
      extensionDir: join(ROOT, "dist/extension"),
      profileDir: join(world.home, "profile"),
      urls: [`chrome-extension://${EXTENSION_ID}/connect.html?port=${world.port}&label=hops`],
      cdp: true,
    });
    const started = await world.run(["session", "start", "--no-focus"]);
    if (started.code !== 0) throw new Error(`hops: session start failed: ${started.stderr || started.stdout}`);
    const session = started.stdout.trim();
    await world.run(["navigate", world.fixtures.url("/bench-peer-small.html"), "--session", session]);
    const text = JSON.parse((await world.run(["snapshot", "--json", "--session", session])).stdout).result.text as string;
    const ref = (re: RegExp) =>
      text
        .split("\n")
        .find((l) => re.test(l))
        ?.match(/@e\d+/)?.[0] ?? "";
    const sw = await ServiceWorker.attach(world.browser.cdpPort!);
    const lane = await McpLane.start(world.env);
    const calls: [string, Record<string, unknown>][] = [
      ["tab_list", {}],
      ["evaluate", { expression: "1+1" }],
      ["snapshot", {}],
      ["click", { target: ref(/button "Add note"/) }],
      ["fill", { target: ref(/textbox "Full name"/), value: "Ada" }],
      ["press", { key: "End" }],
      ["type", { text: "abc" }],
      ["select", { target: ref(/combobox "Plan"/), values: ["pro"] }],
      ["hover", { target: ref(/button "More"/) }],
    ];
    // After the others (a navigation makes the refs above stale); a session of its own each round.
    const later: [string, Record<string, unknown>][] = [
      ["navigate", { url: world.fixtures.url("/bench-peer-small.html") }],
      ["session_start", { focus: false }],
    ];
    await sw.evaluate(INSTALL);
    // The last of three rounds is printed: the first ones warm the page's and the worker's caches.
    for (const [list, rounds] of [
      [calls, 3],
      [later, 3],
    ] as const) {
      for (let round = 1; round <= rounds; round++) {
        for (const [tool, args] of list) {
          await sw.evaluate("(__bskHops = [], __bskHopsT0 = performance.now(), true)");
          const ms = await lane.time({ tool, args: () => (tool === "session_start" ? args : { session_id: session, ...args }) }, 0);
          const seen = ((await sw.evaluate("__bskHops")) as Hop[]).sort((a, b) => a[1] - b[1]);
          if (round < 3) continue;
          const r1 = (x: number) => +x.toFixed(1);
          out.push({ tool, ms: r1(ms), hops: seen.map(([what, at, took]) => [what, r1(at), r1(took)]) });
          console.log(`\n${tool}: ${ms.toFixed(1)} ms through bsk mcp`);
          for (const [what, at, took] of seen)
            console.log(`  +${at.toFixed(1).padStart(6)} ms  ${took.toFixed(1).padStart(6)} ms  ${what}`);
        }
      }
    }
    await lane.close();
    sw.close();
  } finally {
    await world.dispose();
  }
  return out;
}
