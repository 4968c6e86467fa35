/**
 * Run by extension-detach-forgets.test.ts in a process of its own (the worker's modules bind `chrome` when first
 * imported). Tabs are attached, log to the console, and are detached by bsk itself (a borrowed tab returned), for
 * which Chrome fires no onDetach: how many of them the console/network capture still holds. Prints JSON.
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

installCdpListeners();
installDiagnosticsCapture();
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
  if ((await tabLogs(tabId)).console.ring.lastSeq > 0) heldWhileAttached++;
  await detach(tabId);
}
let heldAfterDetach = 0;
for (let tabId = 1; tabId <= TABS; tabId++) if ((await tabLogs(tabId)).console.ring.lastSeq > 0) heldAfterDetach++;
console.log(JSON.stringify({ tabs: TABS, heldWhileAttached, heldAfterDetach }));
