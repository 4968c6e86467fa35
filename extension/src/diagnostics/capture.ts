/**
 * Console and network capture per tab, from the moment the debugger attaches to it (cdp.ts onAttach). The
 * buffers live in the service worker's memory only: when the worker is stopped they go with it, and events that
 * happen while it is dead are lost; numbering starts again with the next attachment (a reader's old cursor then
 * reads from the start). The debugger detaching (session end, tab closed) drops the tab's buffers.
 */
import { onAttach, subscribe } from "../cdp.ts";
import { ConsoleLog } from "./console-log.ts";
import { NetworkLog } from "./network-log.ts";

export const CONSOLE_CAPACITY = 1000;
export const NETWORK_CAPACITY = 1000;

export interface TabLogs {
  console: ConsoleLog;
  network: NetworkLog;
}

const tabs = new Map<number, TabLogs>();

export function installDiagnosticsCapture(): void {
  onAttach(async (tabId, send) => {
    if (!tabs.has(tabId)) {
      const logs: TabLogs = { console: new ConsoleLog(CONSOLE_CAPACITY), network: new NetworkLog(NETWORK_CAPACITY) };
      tabs.set(tabId, logs);
      const off = subscribe(
        tabId,
        (method, params) => {
          if (method.startsWith("Network.")) logs.network.onEvent(method, params);
          else logs.console.onEvent(method, params);
        },
        () => {
          off();
          if (tabs.get(tabId) === logs) tabs.delete(tabId);
        },
      );
    }
    // Subscribed first: Runtime.enable and Log.enable replay what the page logged before we attached.
    await Promise.all([send("Runtime.enable"), send("Log.enable"), send("Network.enable", { maxPostDataSize: 0 })]);
  });
}

/** The tab's buffers; empty ones when capture has not started (the caller attaches first). */
export function tabLogs(tabId: number): TabLogs {
  return tabs.get(tabId) ?? { console: new ConsoleLog(1), network: new NetworkLog(1) };
}
