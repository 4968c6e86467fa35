/**
 * Which element of a tab's top document is bsk's own overlay host, told to one of bsk's worlds there
 * (own-overlay-in-page.ts). A page can name elements bsk-overlay too, so the name decides nothing: the host's closed
 * shadow root carries a random mark (features/overlay/ui/host.ts) that the page cannot read; the overlay content
 * script keeps it in the content scripts' world, read here with scripting.executeScript. Through CDP (which sees
 * into closed shadow roots) each element of that name among <html>'s children, where the host always is, is looked
 * at until one carries the mark, and that element itself is handed to the world.
 *
 * Asked only when in-page code meets an element of that name it does not know (a new host, a page's own): about
 * 3 + 2 per candidate round trips, once per host and world; a known host, or any other element, costs nothing.
 */
import { browser } from "wxt/browser";
import { sendTo } from "../cdp/debugger.ts";
import type { CdpTarget } from "../cdp/refs/target.ts";
import { OVERLAY_MARK_ATTR, OVERLAY_MARK_GLOBAL, OVERLAY_TAG } from "../shared/messages/overlay.ts";
import { OWN_OVERLAY_GLOBAL } from "./own-overlay-in-page.ts";

/** A page that fills <html> with elements of that name gets its own ones looked at, this many from the end. */
const MAX_CANDIDATES = 8;

/** Where in-page calls run: on an object of the world, or in the world itself. */
export type InWorld = { objectId: string } | { executionContextId: number };

interface DescribedNode {
  attributes?: string[];
  children?: DescribedNode[];
  shadowRoots?: (DescribedNode & { shadowRootType?: string })[];
}

/** Runs in the content scripts' world (self-contained: executeScript serializes it). */
function readMark(name: string): string | null {
  const mark = (globalThis as Record<string, unknown>)[name];
  return typeof mark === "string" ? mark : null;
}

/** The current host's mark, or null (no overlay drawn, a page scripts cannot run in). */
async function markOf(tabId: number): Promise<string | null> {
  try {
    const [r] = await browser.scripting.executeScript({
      target: { tabId, frameIds: [0] },
      world: "ISOLATED",
      func: readMark,
      args: [OVERLAY_MARK_GLOBAL],
    });
    return typeof r?.result === "string" ? r.result : null;
  } catch {
    return null;
  }
}

const CANDIDATE_FN = `function (tag, k) {
  const all = document.documentElement ? [...document.documentElement.children].filter((e) => e.localName === tag) : [];
  return all[all.length - 1 - k] || null;
}`;

function carriesMark(node: DescribedNode, mark: string): boolean {
  const marked = (n: DescribedNode) => {
    const a = n.attributes ?? [];
    for (let i = 0; i + 1 < a.length; i += 2) if (a[i] === OVERLAY_MARK_ATTR && a[i + 1] === mark) return true;
    return false;
  };
  return (node.shadowRoots ?? []).some((r) => r.shadowRootType === "closed" && (r.children ?? []).some(marked));
}

/** The host as an object of the world, or null. */
async function findHost(cdp: CdpTarget, on: InWorld, mark: string, group: string, signal?: AbortSignal): Promise<string | null> {
  for (let k = 0; k < MAX_CANDIDATES; k++) {
    const r = await sendTo(
      cdp,
      "Runtime.callFunctionOn",
      { ...on, functionDeclaration: CANDIDATE_FN, arguments: [{ value: OVERLAY_TAG }, { value: k }], objectGroup: group },
      signal,
    );
    const objectId: string | undefined = r.result?.objectId;
    if (!objectId) return null;
    const { node } = await sendTo<{ node: DescribedNode }>(cdp, "DOM.describeNode", { objectId, depth: 2, pierce: true }, signal);
    if (carriesMark(node, mark)) return objectId;
  }
  return null;
}

const TELL_FN = `function (name, host, n) {
  const own = globalThis[name];
  if (!own) return false;
  own.told(host || null);
  return n ? own.wasOwn(n) : false;
}`;

let groups = 0;

/**
 * Tells the world (`on`, on `cdp`) of a document of `tabId` which element is bsk's overlay host. With `asked` (a
 * number the world gave an element, own-overlay-in-page.ts), says whether that element was it.
 */
export async function learnOwnOverlay(tabId: number, cdp: CdpTarget, on: InWorld, signal?: AbortSignal, asked = 0): Promise<boolean> {
  const group = `bsk-own-overlay-${++groups}`;
  try {
    // The overlay draws only in the tab's top document, never in another site's iframe (its own CDP session).
    const mark = cdp.sessionId ? null : await markOf(tabId);
    const host = mark ? await findHost(cdp, on, mark, group, signal) : null;
    const r = await sendTo(
      cdp,
      "Runtime.callFunctionOn",
      {
        ...(host ? { objectId: host } : on),
        functionDeclaration: TELL_FN,
        arguments: [{ value: OWN_OVERLAY_GLOBAL }, host ? { objectId: host } : { value: null }, { value: asked }],
        returnByValue: true,
      },
      signal,
    );
    return r.result?.value === true;
  } finally {
    void sendTo(cdp, "Runtime.releaseObjectGroup", { objectGroup: group }).catch(() => undefined);
  }
}
