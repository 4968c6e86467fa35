/**
 * Run by extension-detach-forgets.test.ts in a process of its own (the worker's modules bind `chrome` when first
 * imported). Tabs are attached, log to the console, and are detached by bsk itself (a borrowed tab returned), for
 * which Chrome fires no onDetach: how many of them the console/network capture and the last-snapshot store still
 * hold; and how many last snapshots stay of many tabs never detached. Prints JSON.
 */
import { fakeBrowser } from "wxt/testing/fake-browser";

type EventListener = (source: { tabId?: number; sessionId?: string }, method: string, params?: object) => void;
const onEvent: EventListener[] = [];
(fakeBrowser as { debugger?: unknown }).debugger = {
  attach: async () => undefined,
  detach: async () => undefined,
  sendCommand: async () => ({}),
  onEvent: { addListener: (l: EventListener) => onEvent.push(l) },
  onDetach: { addListener: () => undefined },
};
(globalThis as { chrome?: unknown }).chrome = fakeBrowser;
const { attach, detach, installCdpListeners } = await import("../../../extension/src/cdp/debugger.ts");
const { installDiagnosticsCapture, tabLogs } = await import("../../../extension/src/features/diagnostics/capture.ts");
const store = await import("../../../extension/src/page/snapshot/store.ts");
const navReasons = await import("../../../extension/src/cdp/nav-reasons.ts");

installCdpListeners();
installDiagnosticsCapture();
store.installSnapshotStore();
navReasons.installNavReasons();
const snapshotOf = (tabId: number) => ({ meta: {} as never, lines: [`- heading "tab ${tabId}"`], at: Date.now() });
const TABS = 50;
const logged = (tabId: number) => ({
  type: "log",
  args: [{ type: "string", value: `tab ${tabId} logs` }],
  timestamp: Date.now(),
  executionContextId: 1,
});
let heldWhileAttached = 0;
for (let tabId = 1; tabId <= TABS; tabId++) {
  await attach(tabId);
  for (const l of onEvent) l({ tabId }, "Runtime.consoleAPICalled", logged(tabId));
  store.setLast("s1", tabId, snapshotOf(tabId));
  if ((await tabLogs(tabId)).console.ring.lastSeq > 0 && store.getLast("s1", tabId)) heldWhileAttached++;
  await detach(tabId);
}
let logsAfterDetach = 0;
for (let tabId = 1; tabId <= TABS; tabId++) if ((await tabLogs(tabId)).console.ring.lastSeq > 0) logsAfterDetach++;
const snapshotsAfterDetach = store.lastCount();
// Tabs never detached (the worker missed it): the last snapshots stay bounded, the newest kept.
const MANY = 4 * store.MAX_LAST;
for (let tabId = 1000; tabId < 1000 + MANY; tabId++) store.setLast(`s${tabId % 3}`, tabId, snapshotOf(tabId));
// A page whose iframes come and go, each asking for a navigation: the tab remembers a bounded number of frames.
const FRAMES = 10 * navReasons.MAX_FRAMES;
await attach(7);
for (let i = 0; i < FRAMES; i++)
  for (const l of onEvent)
    l({ tabId: 7 }, "Page.frameRequestedNavigation", {
      frameId: `F${i}`,
      reason: "scriptInitiated",
      url: "https://a.test/",
      disposition: "currentTab",
    });
const framesRemembered = navReasons.requestedFrames(7);
await detach(7);
console.log(
  JSON.stringify({
    frames: FRAMES,
    maxFrames: navReasons.MAX_FRAMES,
    framesRemembered,
    framesAfterDetach: navReasons.requestedFrames(7),
    tabs: TABS,
    heldWhileAttached,
    logsAfterDetach,
    snapshotsAfterDetach,
    many: MANY,
    maxLast: store.MAX_LAST,
    snapshotsAfterMany: store.lastCount(),
    newestKept: store.getLast(`s${(999 + MANY) % 3}`, 999 + MANY) !== undefined,
  }),
);
