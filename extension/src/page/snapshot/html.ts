/** get-html: the page's or one element's HTML, capped in UTF-8 bytes; values of secret fields masked. */
import type { Result } from "../../../../protocol/catalog.ts";
import { mainFrameId, sendTo } from "../../cdp/debugger.ts";
import { dropWorld, isGoneError, worldOf } from "../../cdp/frames.ts";
import type { CdpTarget, ResolvedTarget } from "../../cdp/refs/target.ts";
import { OVERLAY_TAG } from "../../shared/messages/overlay.ts";
import { learnOwnOverlay, type InWorld } from "../own-overlay.ts";
import { OWN_OVERLAY_GLOBAL } from "../own-overlay-in-page.ts";

/**
 * Runs with `this` = an element or null (the whole document). Returns [html cut to maxBytes chars, full byte length],
 * or {ask} when an element of the overlay's name is one the world does not know yet (own-overlay.ts).
 */
const HTML_FN = `function (maxBytes, own, tag, decide) {
  let root = this && this.nodeType === 1 ? this : document.documentElement;
  // bsk's own overlay host (its closed shadow root never serializes) is not the page's; a page's own element of that
  // name is. The host is always a child of <html>.
  const named = root === document.documentElement ? [...root.children].filter((c) => c.localName === tag) : [];
  const whose = named.map((c) => globalThis[own].whose(c, decide));
  if (whose.includes("ask")) return JSON.stringify({ ask: true });
  const hostAt = [...root.childNodes].indexOf(named[whose.indexOf("own")]);
  const secret = (el) => el.localName === "input" && (el.type === "password" ||
    /\\b(cc-number|cc-csc|cc-exp|one-time-code|current-password|new-password)\\b/i.test(el.getAttribute("autocomplete") || "") ||
    /\\b(cvv|cvc|csc|otp)\\b|card.?num|cc.?num|one.?time/i.test((el.name || "") + " " + (el.id || "")));
  const masked = [...root.querySelectorAll("input[value]")].filter(secret);
  if (root.localName === "input" && root.hasAttribute("value") && secret(root)) masked.push(root);
  if (masked.length) {
    const all = [...root.querySelectorAll("input")];
    const clone = root.cloneNode(true);
    const copies = clone.localName === "input" ? [clone] : [...clone.querySelectorAll("input")];
    const at = root.localName === "input" ? () => 0 : (el) => all.indexOf(el);
    for (const el of masked) copies[at(el)]?.setAttribute("value", "•••");
    root = clone;
  }
  let html = root.outerHTML;
  if (hostAt >= 0) {
    // Its text is cut where it stands: after it come only its later siblings' (a page's twin of it among them).
    const its = root.childNodes[hostAt].outerHTML;
    const after = [...root.childNodes].slice(hostAt + 1).map((n) => (n.nodeType === 1 ? n.outerHTML : n.nodeType === 8 ? "<!--" + n.data + "-->" : "")).join("");
    let end = html.length;
    for (let twins = after.split(its).length - 1; twins >= 0; twins--) end = html.lastIndexOf(its, end - 1);
    if (end >= 0) html = html.slice(0, end) + html.slice(end + its.length);
  }
  if (!this || this.nodeType !== 1) {
    const dt = document.doctype;
    if (dt) html = "<!DOCTYPE " + dt.name + ">\\n" + html;
  }
  const bytes = new TextEncoder().encode(html).length;
  return JSON.stringify([html.length > maxBytes ? html.slice(0, maxBytes) : html, bytes]);
}`;

function cutToBytes(html: string, maxBytes: number): string {
  const enc = new TextEncoder().encode(html);
  if (enc.length <= maxBytes) return html;
  // fatal:false drops a character cut in half at the end.
  return new TextDecoder("utf-8", { fatal: false }).decode(enc.subarray(0, maxBytes)).replace(/\uFFFD$/, "");
}

/** HTML_FN on an element or in a world; the world is told which element is bsk's overlay host when it asks. */
async function htmlIn(tabId: number, cdp: CdpTarget, on: InWorld, maxBytes: number, signal?: AbortSignal): Promise<string> {
  const call = async (decide: boolean) => {
    const args = [maxBytes, OWN_OVERLAY_GLOBAL, OVERLAY_TAG, decide].map((value) => ({ value }));
    const r = await sendTo(
      cdp,
      "Runtime.callFunctionOn",
      { functionDeclaration: HTML_FN, ...on, arguments: args, returnByValue: true },
      signal,
    );
    return r.result.value as string;
  };
  const first = await call(false);
  if (!first.startsWith('{"ask"')) return first;
  await learnOwnOverlay(tabId, cdp, on, signal);
  return call(true);
}

export async function getHtml(
  tabId: number,
  target: ResolvedTarget | null,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<Result<"get_html">> {
  const value = target
    ? await htmlIn(tabId, target.cdp, { objectId: target.objectId }, maxBytes, signal)
    : await wholeDocument(tabId, maxBytes, signal);
  const [html, bytes] = JSON.parse(value) as [string, number];
  const cut = cutToBytes(html, maxBytes);
  return { tab_id: tabId, html: cut, bytes, truncated: bytes > maxBytes };
}

async function wholeDocument(tabId: number, maxBytes: number, signal?: AbortSignal, retried = false): Promise<string> {
  const world = await worldOf({ tabId }, await mainFrameId(tabId, signal), signal);
  try {
    return await htmlIn(tabId, { tabId }, { executionContextId: world.contextId }, maxBytes, signal);
  } catch (err) {
    if (retried || !isGoneError(err)) throw err;
    dropWorld(world);
    return wholeDocument(tabId, maxBytes, signal, true);
  }
}
