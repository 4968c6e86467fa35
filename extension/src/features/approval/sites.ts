/**
 * Which calls ask the person first: on a tab whose top-level origin is on the person's list ("Ask me before the
 * agent acts here", storage.local ask_first_origins, written only by the popup), or in a session started with
 * --confirm-writes. The worker reads the list once and again after each change (storage.onChanged), so a change in
 * the popup counts from the next call; with nothing listed, a call needs no look at its tab either.
 */
import { browser } from "wxt/browser";
import { normalizeOrigin } from "../../../../protocol/origins.ts";
import type { ApprovalRecord } from "../../../../protocol/approval.ts";
import { LOCAL, type SessionState } from "../../session/settings.ts";

/**
 * What the person typed → the origin to list: `https://bank.example`, `bank.example` (https), or a page's whole
 * address (its origin is kept). Anything that is not http(s) → null.
 */
export function askFirstOrigin(text: string): string | null {
  const exact = normalizeOrigin(text);
  if (exact) return exact;
  try {
    const u = new URL(text.trim());
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname ? u.origin : null;
  } catch {
    return null;
  }
}

/** The origins on the list; `null` when the list cannot be read (callers then ask: authorization fails closed). */
export async function readAskFirst(): Promise<string[] | null> {
  try {
    const got = (await browser.storage.local.get(LOCAL.askFirst))[LOCAL.askFirst];
    if (got === undefined) return [];
    return Array.isArray(got) ? got.filter((o): o is string => typeof o === "string") : null;
  } catch {
    return null;
  }
}

/** The list as the worker last read it; undefined until read, and again after each change. */
let held: Promise<string[] | null> | undefined;
let listening = false;

/**
 * The list for the worker's calls: read from storage once, then kept until it changes. An unreadable list is not
 * kept (the next call reads again; this one asks). Without the change listener (another context) it is read each time.
 */
function askFirstList(): Promise<string[] | null> {
  if (!listening) return readAskFirst();
  if (held) return held;
  const read = readAskFirst();
  held = read;
  void read.then((list) => {
    if (list === null && held === read) held = undefined;
  });
  return read;
}

/** In the worker: a change to the list drops what it holds (the next call reads it again). */
export function installAskFirstWatch(): void {
  listening = true;
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && LOCAL.askFirst in changes) held = undefined;
  });
  // For tests: what the worker holds (null: nothing, it reads on the next call), to know a change has reached it.
  (globalThis as { bskAskFirstHeld?: () => Promise<string[] | null> }).bskAskFirstHeld = async () => (held ? await held : null);
}

/** The top-level origin of a URL, or null for what has none (about:blank, data:). */
export function originOf(url: string | undefined): string | null {
  try {
    const o = new URL(url ?? "").origin;
    return o === "null" ? null : o;
  } catch {
    return null;
  }
}

/** A page the overlay draws on, so the person can be asked there: a site's top-level page (its content script matches no other). */
export function panelCanShow(url: string | undefined): boolean {
  return /^(https?|file):/i.test(url ?? "");
}

export interface AskWhy extends Pick<ApprovalRecord, "cause" | "origin"> {
  /** The person must be asked, but the tab's page cannot show the panel (about:blank, data:): the call is refused. */
  unshowable?: true;
}

/**
 * Why a page-changing call on `tabId` must wait for the person, or null when it need not. `frameOrigins` (the origins
 * of the tab's frames) is given for a call that puts input or a script into the page, which can land in any of its
 * frames (the target's, the one under a point, one that takes focus): a listed site framed by an unlisted page is
 * asked for too. A navigation or a tab change is asked by the top-level origin alone. With --confirm-writes every page
 * is asked; on one that cannot show the panel (about:blank, where a session starts) only calls that put nothing into
 * it (a navigation away) pass unasked, and anything else is refused, since nobody can be asked there.
 */
export async function whyAsk(
  session: SessionState,
  tabId: number,
  frameOrigins?: () => Promise<(string | undefined)[]>,
): Promise<AskWhy | null> {
  // This runs before every page-changing call: nothing listed needs no look at the tab.
  const listed = session.confirm_writes ? [] : await askFirstList();
  if (!session.confirm_writes && listed?.length === 0) return null;
  // The browser's error page for an address (a blocked or failed load) shows that address, yet is no page of its site.
  const [tab, top] = await Promise.all([
    browser.tabs.get(tabId).catch(() => undefined),
    browser.webNavigation.getFrame({ tabId, frameId: 0 }).catch(() => null),
  ]);
  const url = top?.errorOccurred ? undefined : tab?.url;
  const origin = originOf(url) ?? undefined;
  const unshowable = panelCanShow(url) ? {} : ({ unshowable: true } as const);
  if (session.confirm_writes) {
    if (!unshowable.unshowable || frameOrigins) return { cause: "confirm_writes", ...(origin && { origin }), ...unshowable };
    return null;
  }
  if (listed === null || (origin && listed.includes(origin))) return { cause: "ask_first_site", ...(origin && { origin }), ...unshowable };
  if (!frameOrigins) return null;
  // Frames that cannot be read are asked for (authorization fails closed).
  const framed = await frameOrigins().then(
    (all) => all.find((o) => o !== undefined && listed.includes(o)) ?? null,
    () => origin ?? "",
  );
  if (framed === null) return null;
  return { cause: "ask_first_site", ...(framed && { origin: framed }), ...unshowable };
}
