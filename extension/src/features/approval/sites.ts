/**
 * Which calls ask the person first: on a tab whose top-level origin is on the person's list ("Ask me before the
 * agent acts here", storage.local ask_first_origins, written only by the popup), or in a session started with
 * --confirm-writes. The list is read on every call, so a change in the popup counts at once.
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

/** The top-level origin of a URL, or null for what has none (about:blank, data:). */
export function originOf(url: string | undefined): string | null {
  try {
    const o = new URL(url ?? "").origin;
    return o === "null" ? null : o;
  } catch {
    return null;
  }
}

/**
 * Why a page-changing call on `tabId` must wait for the person, or null when it need not. With --confirm-writes a
 * tab showing no page of a site (about:blank, where a session starts; the overlay cannot be drawn there either)
 * is not asked: nothing of the person's is in it, and the call that leaves it for a site is the first one asked
 * after it.
 */
export async function whyAsk(session: SessionState, tabId: number): Promise<Pick<ApprovalRecord, "cause" | "origin"> | null> {
  // Both reads at once: this runs before every page-changing call.
  const [tab, listed] = await Promise.all([
    browser.tabs.get(tabId).catch(() => undefined),
    session.confirm_writes ? Promise.resolve([]) : readAskFirst(),
  ]);
  const origin = originOf(tab?.url) ?? undefined;
  if (session.confirm_writes) {
    return /^(https?|file):/i.test(tab?.url ?? "") ? { cause: "confirm_writes", ...(origin && { origin }) } : null;
  }
  if (listed === null) return { cause: "ask_first_site", ...(origin && { origin }) };
  return origin && listed.includes(origin) ? { cause: "ask_first_site", origin } : null;
}
