/**
 * The "opened by" links between tabs (see link-graph.ts for why they matter): every navigation target a page
 * creates is recorded, kept in chrome.storage.session so a stopped worker does not forget them, and dropped once
 * no two live tabs are linked through it. tabs.onCreated's openerTabId is not used: Chromium also sets it for a
 * tab the person opens next to the active one (Ctrl-T), which shares nothing with it.
 */
import { browser } from "wxt/browser";
import { type Edge, linkedTo, prune, renamed } from "./link-graph.ts";

const STORAGE_KEY = "tab_links";

/** The one owner of the recorded links. */
const links = {
  edges: [] as Edge[],
  loaded: undefined as Promise<void> | undefined,
  /** Tabs seen closing by this worker: tab ids are never reused while the browser runs. */
  closed: new Set<number>(),
};

function ready(): Promise<void> {
  links.loaded ??= browser.storage.session
    .get(STORAGE_KEY)
    .then((got) => {
      const kept = (got[STORAGE_KEY] as Edge[] | undefined) ?? [];
      links.edges = [...kept, ...links.edges];
    })
    .catch(() => undefined);
  return links.loaded;
}

async function change(f: (edges: Edge[]) => Edge[]): Promise<void> {
  await ready();
  links.edges = f(links.edges);
  await browser.storage.session
    .set({ [STORAGE_KEY]: links.edges })
    .catch((err: unknown) => console.warn("bsk: could not keep tab links", err));
}

async function liveTabIds(): Promise<Set<number>> {
  return new Set((await browser.tabs.query({})).map((t) => t.id).filter((id): id is number => id !== undefined));
}

/** Forgets groups left with at most one open tab. Only tabs seen closing count as closed, so a link recorded
 * while this runs is never taken for a dead one. */
function tidy(closedTabId: number): Promise<void> {
  links.closed.add(closedTabId);
  return change((edges) => {
    const kept = prune(edges, { has: (id: number) => !links.closed.has(id) });
    const referenced = new Set(kept.flat());
    for (const id of links.closed) if (!referenced.has(id)) links.closed.delete(id);
    return kept;
  });
}

export function installLinkTracking(): void {
  browser.webNavigation.onCreatedNavigationTarget.addListener((d) => void change((e) => [...e, [d.sourceTabId, d.tabId] as const]));
  browser.tabs.onReplaced.addListener((added, removed) => void change((e) => renamed(e, removed, added)));
  browser.tabs.onRemoved.addListener((tabId) => void tidy(tabId));
}

/** The live tabs whose pages can reach `tabId`'s (or be reached from it). */
export async function linkedTabs(tabId: number): Promise<number[]> {
  await ready();
  return linkedTo(links.edges, tabId, await liveTabIds());
}
