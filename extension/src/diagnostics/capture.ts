/**
 * Console and network capture per tab, from the moment the debugger attaches to it (cdp.ts onAttach), out-of-process
 * iframes included (their child sessions get the same domains when they attach). The buffers live in the service
 * worker's memory only: when the worker is stopped they go with it, and events that happen while it is dead are lost;
 * numbering starts again with the next attachment (a reader's old cursor then reads from the start). The debugger
 * detaching (session end, tab closed) drops the tab's buffers. A borrowed tab's buffers start when the person lent it. Console errors and failed requests also go to the
 * session's event stream (events/page-events.ts).
 */
import { onAttach, sendTo, tapCdp } from "../cdp.ts";
import { reportConsole, reportRequest } from "../events/page-events.ts";
import { borrowedSince } from "../sessions.ts";
import type { CdpTarget } from "../refs/target.ts";
import { ConsoleLog } from "./console-log.ts";
import { NetworkLog } from "./network-log.ts";

export const CONSOLE_CAPACITY = 1000;
export const NETWORK_CAPACITY = 1000;

export interface TabLogs {
  console: ConsoleLog;
  network: NetworkLog;
  /** Domains being enabled in child sessions; a read waits for them so what they replay is in. */
  enabling: Set<Promise<unknown>>;
}

const tabs = new Map<number, TabLogs>();

/** Runtime and Log replay what the page logged before they were enabled; requests from before are not known. */
function enable(send: (method: string, params?: object) => Promise<unknown>): Promise<unknown> {
  return Promise.all([send("Runtime.enable"), send("Log.enable"), send("Network.enable", { maxPostDataSize: 0 })]);
}

function enableChild(logs: TabLogs, child: CdpTarget): void {
  const pending = enable((method, params) => sendTo(child, method, params)).catch((err: unknown) =>
    console.warn(`bsk: no console/network capture in iframe session ${child.sessionId}: ${String(err)}`),
  );
  logs.enabling.add(pending);
  void pending.finally(() => logs.enabling.delete(pending));
}

export function installDiagnosticsCapture(): void {
  onAttach((tabId, send) => {
    // Fresh buffers for each attachment: our own detach (a returned tab, a session's end) fires no onDetach, and
    // what a tab held for an earlier session is not the next one's. What Runtime and Log replay on enabling
    // happened before this moment: it stays out of the event stream; in a borrowed tab, what came before the
    // person's consent is theirs and stays out of the buffers too.
    const liveFrom = Date.now();
    const lentFrom = borrowedSince(tabId);
    tabs.set(tabId, {
      console: new ConsoleLog(CONSOLE_CAPACITY, (e, origin) => reportConsole(tabId, e, origin, liveFrom), lentFrom),
      network: new NetworkLog(NETWORK_CAPACITY, undefined, (e) => reportRequest(tabId, e, liveFrom), lentFrom),
      enabling: new Set(),
    });
    return enable(send);
  });
  tapCdp({
    onEvent(source, method, params) {
      const logs = tabs.get(source.tabId);
      if (!logs) return;
      if (method === "Target.attachedToTarget" && params.targetInfo?.type === "iframe") {
        enableChild(logs, { tabId: source.tabId, sessionId: params.sessionId });
      } else if (method.startsWith("Network.")) {
        logs.network.onEvent(method, params, source.sessionId);
      } else {
        logs.console.onEvent(method, params);
      }
    },
    onDetach(tabId) {
      tabs.delete(tabId);
    },
  });
}

/** The tab's buffers once pending iframe captures are on; empty ones when capture has not started (attach first). */
export async function tabLogs(tabId: number): Promise<Pick<TabLogs, "console" | "network">> {
  const logs = tabs.get(tabId);
  if (!logs) return { console: new ConsoleLog(1), network: new NetworkLog(1) };
  await Promise.all([...logs.enabling]);
  return logs;
}
