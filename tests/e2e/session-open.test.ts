/**
 * Opening an Agent Window overlaps its waits (extension/src/tools/session.ts): the debugger attach that the first
 * call needs starts as soon as the window's tab exists, beside the blocking rules' update, and session.open still
 * answers only once the rules cover that tab. Checked by the order of the service worker's own chrome.* calls
 * (wrapped over the browser's DevTools socket, as `npm run bench -- --hops` does), never by durations.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { evaluateInWorker } from "./devtools.ts";
import { startWorld, until, type World } from "./harness.ts";

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w.stop();
});

/**
 * Installed in the worker: the order of the debugger attaches (with their tab) and of the blocking rules' updates
 * (once each has resolved, with the tabs its rules cover).
 */
const RECORD = `(() => {
  const order = (globalThis.__bskOpenOrder = []);
  const attach = chrome.debugger.attach;
  chrome.debugger.attach = function (target, ...rest) {
    order.push({ what: "attach", tabs: [target.tabId] });
    return attach.call(this, target, ...rest);
  };
  const update = chrome.declarativeNetRequest.updateSessionRules;
  chrome.declarativeNetRequest.updateSessionRules = function (options, ...rest) {
    const tabs = (options.addRules ?? []).flatMap((r) => r.condition.tabIds ?? []);
    const r = update.call(this, options, ...rest);
    Promise.resolve(r).then(() => order.push({ what: "rules in", tabs }), () => undefined);
    return r;
  };
  return true;
})()`;

interface Step {
  what: string;
  tabs: number[];
}

test("the window's tab is attached while the blocking rules go in; the answer still waits for the rules", async () => {
  const origin = new URL(w.fixtures.url("/")).origin;
  // The worker's target is listed once the extension has started.
  await until("the service worker recording", () => evaluateInWorker(w.browser.cdpPort!, RECORD).catch(() => false));
  const s = await w.startSession(["--allow-origin", origin]);
  const order = (await evaluateInWorker(w.browser.cdpPort!, "globalThis.__bskOpenOrder")) as Step[];
  const tab = (await w.ok(["tab", "list", "--session", s])).tabs[0].tab_id as number;
  const first = (what: string) => order.findIndex((o) => o.what === what && o.tabs.includes(tab));
  // The rules covered the tab before the session was answered (before any navigation in it)…
  expect(first("rules in")).toBeGreaterThanOrEqual(0);
  // …and its attach did not wait for them.
  expect(first("attach")).toBeGreaterThanOrEqual(0);
  expect(first("attach")).toBeLessThan(first("rules in"));
  const rules = (await evaluateInWorker(w.browser.cdpPort!, "chrome.declarativeNetRequest.getSessionRules()")) as {
    condition: { tabIds?: number[] };
  }[];
  expect(rules.some((r) => r.condition.tabIds?.includes(tab))).toBe(true);
  await w.ok(["session", "stop", s]);
});
