/** get-html: the page's or one element's HTML, capped in UTF-8 bytes; values of secret fields masked. */
import type { Result } from "../../../../protocol/catalog.ts";
import { mainFrameId, sendTo } from "../../cdp/debugger.ts";
import { dropWorld, isGoneError, worldOf } from "../../cdp/frames.ts";
import type { ResolvedTarget } from "../../cdp/refs/target.ts";

/** Runs with `this` = an element or null (the whole document). Returns [html cut to maxBytes chars, full byte length]. */
const HTML_FN = `function (maxBytes) {
  const secret = (el) => el.localName === "input" && (el.type === "password" ||
    /\\b(cc-number|cc-csc|cc-exp|one-time-code|current-password|new-password)\\b/i.test(el.getAttribute("autocomplete") || "") ||
    /\\b(cvv|cvc|csc|otp)\\b|card.?num|cc.?num|one.?time/i.test((el.name || "") + " " + (el.id || "")));
  let root = this && this.nodeType === 1 ? this : document.documentElement;
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
  // bsk's own overlay host (its closed shadow root never serializes) is not the page's.
  for (const own of this && this.nodeType === 1 ? [] : document.querySelectorAll("bsk-overlay")) html = html.replace(own.outerHTML, "");
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

export async function getHtml(
  tabId: number,
  target: ResolvedTarget | null,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<Result<"get_html">> {
  let value: string;
  if (target) {
    const r = await sendTo(
      target.cdp,
      "Runtime.callFunctionOn",
      {
        functionDeclaration: HTML_FN,
        objectId: target.objectId,
        arguments: [{ value: maxBytes }],
        returnByValue: true,
      },
      signal,
    );
    value = r.result.value as string;
  } else {
    value = await wholeDocument(tabId, maxBytes, signal);
  }
  const [html, bytes] = JSON.parse(value) as [string, number];
  const cut = cutToBytes(html, maxBytes);
  return { tab_id: tabId, html: cut, bytes, truncated: bytes > maxBytes };
}

async function wholeDocument(tabId: number, maxBytes: number, signal?: AbortSignal, retried = false): Promise<string> {
  const world = await worldOf({ tabId }, await mainFrameId(tabId, signal), signal);
  try {
    const r = await sendTo(
      { tabId },
      "Runtime.callFunctionOn",
      {
        functionDeclaration: HTML_FN,
        executionContextId: world.contextId,
        arguments: [{ value: maxBytes }],
        returnByValue: true,
      },
      signal,
    );
    return r.result.value as string;
  } catch (err) {
    if (retried || !isGoneError(err)) throw err;
    dropWorld(world);
    return wholeDocument(tabId, maxBytes, signal, true);
  }
}
