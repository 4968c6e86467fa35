/**
 * Opt-in event streams of a session (session start --observe): `sockets` — the page's own WebSocket connections
 * opening, closing and failing (CDP Network.webSocket*, the Network domain is on for console/network capture);
 * `dom`, `visibility`, `perf` — an observer in bsk's own isolated world of each top-level document reports DOM
 * mutation summaries, visibility changes and performance entries (navigation and resource timing) through a CDP
 * binding the page cannot see or call. Each tab is observed from its first command on (when the debugger attaches).
 * What a session observes is kept in storage.session, so a restarted worker keeps observing.
 */
import { browser } from "wxt/browser";
import type { OBSERVE_KINDS } from "../../../protocol/methods/history.ts";
import { onAttach, tapCdp } from "../cdp/debugger.ts";
import { emitBurst } from "../ports/outbox.ts";
import { allSessions, ownerOfTab } from "../session/sessions.ts";

type Kind = (typeof OBSERVE_KINDS)[number];

const STORAGE_KEY = "observe";
const WORLD = "bsk-observe";
const BINDING = "__bskObserve";
/** Longest URL or entry name an event carries. */
const NAME_CHARS = 500;

/** What each session observes (storage.session), and the open sockets per tab. */
interface ObserveState {
  observed: Record<string, Kind[]> | null;
  loading: Promise<Record<string, Kind[]>> | null;
  /** Open WebSockets' URLs per tab, by CDP request id (close and error events name only the id). */
  sockets: Map<number, Map<string, string>>;
}
const observeState: ObserveState = {
  observed: null,
  loading: null,
  sockets: new Map<number, Map<string, string>>(),
};

function load(): Promise<Record<string, Kind[]>> {
  observeState.loading ??= browser.storage.session
    .get(STORAGE_KEY)
    .then((got) => (observeState.observed = (got[STORAGE_KEY] as Record<string, Kind[]> | undefined) ?? {}))
    .catch(() => (observeState.observed = {}));
  return observeState.loading;
}

/** session.open: what the new session observes (sessions that ended are forgotten here too). */
export async function observeSession(sessionId: string, kinds: readonly Kind[]): Promise<void> {
  const all = await load();
  const live = new Set(allSessions().map((s) => s.session_id));
  let changed = false;
  for (const id of Object.keys(all)) {
    if (live.has(id)) continue;
    delete all[id];
    changed = true;
  }
  if (kinds.length) {
    all[sessionId] = [...kinds];
    changed = true;
  }
  if (!changed) return;
  // The attach hooks read the map in memory. What a session observes is on disk before session.open answers (a
  // worker restart right after must not lose it); forgetting ended sessions need not hold the answer up.
  const write = browser.storage.session.set({ [STORAGE_KEY]: all }).catch(() => undefined);
  if (kinds.length) await write;
}

function kindsOf(tabId: number): { sessionId: string; kinds: Kind[] } | undefined {
  const owner = ownerOfTab(tabId);
  const kinds = owner && observeState.observed?.[owner.session.session_id];
  return owner && kinds?.length ? { sessionId: owner.session.session_id, kinds } : undefined;
}

export function installObserve(): void {
  onAttach(async (tabId, send, readopted) => {
    await load();
    const page = kindsOf(tabId)?.kinds.filter((k) => k !== "sockets") ?? [];
    if (!page.length) return;
    await send("Runtime.addBinding", { name: BINDING, executionContextName: WORLD });
    // An attachment taken over after a worker restart keeps its registration (only the binding went, with
    // debugger.ts's Runtime.disable): adding it again would run the observer once more in every later document.
    if (readopted) return;
    await send("Page.addScriptToEvaluateOnNewDocument", {
      source: `(${pageObserver.toString()})(${JSON.stringify(page)}, ${JSON.stringify(BINDING)})`,
      worldName: WORLD,
      runImmediately: true,
    });
  });
  tapCdp({
    onEvent(source, method, params) {
      const o = kindsOf(source.tabId);
      if (!o) return;
      const base = { session_id: o.sessionId, tab_id: source.tabId };
      if (method === "Runtime.bindingCalled" && params.name === BINDING && !source.sessionId)
        return fromPage(base, o.kinds, params.payload);
      if (!o.kinds.includes("sockets") || !method.startsWith("Network.webSocket")) return;
      let open = observeState.sockets.get(source.tabId);
      if (!open) observeState.sockets.set(source.tabId, (open = new Map()));
      const id = `${source.sessionId ?? ""}:${params.requestId}`;
      if (method === "Network.webSocketCreated") {
        const url = String(params.url ?? "").slice(0, NAME_CHARS);
        open.set(id, url);
        emitBurst("socket.opened", `${source.tabId}:${url}`, { ...base, url });
      } else if (method === "Network.webSocketClosed") {
        emitBurst("socket.closed", `${source.tabId}:${open.get(id) ?? ""}`, { ...base, url: open.get(id) ?? "" });
        open.delete(id);
      } else if (method === "Network.webSocketFrameError") {
        const url = open.get(id) ?? "";
        emitBurst("socket.error", `${source.tabId}:${url}`, {
          ...base,
          url,
          error: String(params.errorMessage ?? "").slice(0, NAME_CHARS),
        });
      }
    },
    onDetach(tabId) {
      observeState.sockets.delete(tabId);
    },
  });
}

/** A report from the in-page observer: parsed, checked against what the session observes, then sent on. */
function fromPage(base: { session_id: string; tab_id: number }, kinds: Kind[], payload: unknown): void {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(String(payload));
  } catch {
    return;
  }
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  if (r.kind === "dom" && kinds.includes("dom")) {
    emitBurst("dom.mutations", base.tab_id, {
      ...base,
      added: num(r.added),
      removed: num(r.removed),
      attributes: num(r.attributes),
      text: num(r.text),
    });
  } else if (r.kind === "visibility" && kinds.includes("visibility")) {
    emitBurst("visibility", base.tab_id, { ...base, state: r.state === "hidden" ? "hidden" : "visible" });
  } else if (r.kind === "perf" && kinds.includes("perf")) {
    // Each entry names something else (a page, a resource): only repeats of the same name are folded.
    const name = String(r.name ?? "").slice(0, NAME_CHARS);
    emitBurst("perf", `${base.tab_id}:${name}`, {
      ...base,
      entry_type: String(r.entry_type ?? "").slice(0, 40),
      name,
      start_ms: Math.round(num(r.start_ms)),
      duration_ms: Math.round(num(r.duration_ms)),
      ...(typeof r.transfer_size === "number" && { transfer_size: r.transfer_size }),
      ...(typeof r.initiator === "string" && { initiator: r.initiator.slice(0, 40) }),
    });
  }
}

/**
 * Runs in bsk's isolated world of a page (serialised with toString: it must not use anything from outside).
 * DOM mutations are summed and reported at most every 100 ms.
 */
function pageObserver(kinds: string[], binding: string): void {
  const g = globalThis as unknown as Record<string, unknown>;
  if (g.__bskObserving) return;
  g.__bskObserving = true;
  const report = (kind: string, data: Record<string, unknown>) => {
    try {
      (g[binding] as (s: string) => void)(JSON.stringify({ kind, ...data }));
    } catch {
      /* the binding went with the debugger */
    }
  };
  if (kinds.includes("dom")) {
    let sum: { added: number; removed: number; attributes: number; text: number } | null = null;
    new MutationObserver((records) => {
      let s = sum;
      if (!s) {
        const fresh = (s = sum = { added: 0, removed: 0, attributes: 0, text: 0 });
        setTimeout(() => {
          report("dom", fresh);
          sum = null;
        }, 100);
      }
      for (const r of records) {
        if (r.type === "childList") {
          s.added += r.addedNodes.length;
          s.removed += r.removedNodes.length;
        } else if (r.type === "attributes") s.attributes++;
        else s.text++;
      }
    }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  if (kinds.includes("visibility")) {
    document.addEventListener("visibilitychange", () => report("visibility", { state: document.visibilityState }));
  }
  if (kinds.includes("perf")) {
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const t = e as PerformanceResourceTiming;
        report("perf", {
          entry_type: e.entryType,
          name: e.name,
          start_ms: e.startTime,
          duration_ms: e.duration,
          transfer_size: t.transferSize,
          initiator: t.initiatorType,
        });
      }
    });
    for (const type of ["navigation", "resource"]) observer.observe({ type, buffered: true });
  }
}
