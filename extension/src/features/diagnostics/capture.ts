/**
 * Console and network capture per tab, from the moment the debugger attaches to it (cdp/debugger.ts onAttach), out-of-process
 * iframes included (their child sessions get the same domains when they attach). The buffers live in the service
 * worker's memory only: when the worker is stopped they go with it. The next worker's re-adopting attachment replays
 * the page's console messages (those its predecessor never reported become events then); the requests until then
 * are held and fed in (past WAKING_CAPACITY an `events.lost`). Numbering starts again with each attachment (a
 * reader's old cursor then reads from the start). The debugger
 * detaching (session end, tab closed, tab returned: cdp/debugger.ts `detach` tells the taps) drops the tab's buffers. A borrowed tab's buffers start when the person lent it. Console errors and failed requests also go to the
 * session's event stream (page-events.ts).
 */
import { onAttach, sendTo, tapCdp } from "../../cdp/debugger.ts";
import { REPLAY_SLACK_MS, reportConsole, reportLost, reportRequest } from "./page-events.ts";
import { forgetMark, markReported, reportedUpTo } from "../../ports/outbox.ts";
import { borrowedSince } from "../../session/sessions.ts";
import type { CdpTarget } from "../../cdp/refs/target.ts";
import { ConsoleLog, type ConsoleEntry, type ConsoleOrigin } from "./console-log.ts";
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

/** Most page events held for one tab while its capture is not set up again. */
export const WAKING_CAPACITY = 2000;

interface Waking {
  /** When the first one arrived (ms since the epoch). */
  since: number;
  events: { source: CdpTarget; method: string; params: Record<string, any>; at: number }[];
  dropped: number;
  droppedFrom: number;
  droppedTo: number;
}

/**
 * Page events of attached tabs whose capture is not set up yet. A worker that starts again hears the attachments
 * that outlived its predecessor from its first moment, before it has read its sessions back and re-adopted them
 * (keepalive.ts): what the page logs and requests meanwhile is kept here and fed in when it does.
 */
const waking = new Map<number, Waking>();

/** Console messages need no holding: the re-adopting attachment replays them. */
const HELD = /^Network\./;

function hold(source: CdpTarget, method: string, params: Record<string, any>): void {
  const now = Date.now();
  let w = waking.get(source.tabId);
  if (!w) waking.set(source.tabId, (w = { since: now, events: [], dropped: 0, droppedFrom: now, droppedTo: now }));
  w.events.push({ source, method, params, at: now });
  if (w.events.length <= WAKING_CAPACITY) return;
  const gone = w.events.shift()!;
  if (!w.dropped) w.droppedFrom = gone.at;
  w.dropped++;
  w.droppedTo = gone.at;
}

/** When the page sent a held request (ms since the epoch); Infinity when the event does not say. */
function pageTime(params: Record<string, any>): number {
  return typeof params.wallTime === "number" ? params.wallTime * 1000 : Infinity;
}

function feed(logs: TabLogs, source: CdpTarget, method: string, params: Record<string, any>): void {
  if (method === "Target.attachedToTarget" && params.targetInfo?.type === "iframe") {
    enableChild(logs, { tabId: source.tabId, sessionId: params.sessionId });
  } else if (method.startsWith("Network.")) {
    logs.network.onEvent(method, params, source.sessionId);
  } else {
    logs.console.onEvent(method, params);
  }
}

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

/**
 * Up to which page time the replay of a tab's console is not new to the stream. Only an attachment that outlived the
 * previous worker continues from the stored mark; a fresh one starts a new mark at `attachedAt`, so a stale mark
 * (left by a detach this worker never saw) never turns what the page logged before this attachment into events.
 */
async function replayedUpTo(tabId: number, readopted: boolean, attachedAt: number): Promise<number> {
  const stored = await reportedUpTo(tabId);
  const upTo = readopted ? (stored ?? attachedAt) : attachedAt;
  if (!readopted) forgetMark(tabId);
  markReported(tabId, upTo);
  return upTo;
}

export function installDiagnosticsCapture(): void {
  onAttach(async (tabId, send, readopted) => {
    // Fresh buffers for each attachment: what a tab held for an earlier session (or an earlier worker) is not the
    // next one's. In a borrowed tab, what came before the
    // person's consent is theirs and stays out of the buffers. Console: Runtime and Log replay the page's messages
    // on enabling (cdp/debugger.ts turns them off first on a surviving attachment); those up to the tab's mark are not new
    // to the stream: on a fresh attachment, everything until now. The buffers exist before this hook awaits
    // anything: another hook may enable Runtime first, and its replay must land here.
    const attachedAt = Date.now();
    let upTo: number | undefined;
    const unjudged: [ConsoleEntry, ConsoleOrigin][] = [];
    const judge = (e: ConsoleEntry, origin: ConsoleOrigin) =>
      upTo === undefined ? unjudged.push([e, origin]) : reportConsole(tabId, e, origin, upTo);
    // Requests: nothing replays them; those held while the worker woke are live.
    const held = waking.get(tabId);
    waking.delete(tabId);
    const liveFrom = held ? Math.min(held.since, ...held.events.map((e) => pageTime(e.params))) : Date.now();
    const lentFrom = borrowedSince(tabId);
    const logs: TabLogs = {
      console: new ConsoleLog(CONSOLE_CAPACITY, judge, lentFrom),
      network: new NetworkLog(NETWORK_CAPACITY, undefined, (e) => reportRequest(tabId, e, liveFrom), lentFrom),
      enabling: new Set(),
    };
    tabs.set(tabId, logs);
    if (held?.dropped) reportLost(tabId, held.dropped, held.droppedFrom, held.droppedTo);
    for (const e of held?.events ?? []) feed(logs, e.source, e.method, e.params);
    upTo = await replayedUpTo(tabId, readopted, attachedAt - REPLAY_SLACK_MS);
    for (const [e, origin] of unjudged.splice(0)) reportConsole(tabId, e, origin, upTo);
    return enable(send);
  });
  tapCdp({
    onEvent(source, method, params) {
      const logs = tabs.get(source.tabId);
      if (logs) feed(logs, source, method, params);
      else if (HELD.test(method)) hold(source, method, params);
    },
    onDetach(tabId) {
      tabs.delete(tabId);
      waking.delete(tabId);
      forgetMark(tabId);
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
