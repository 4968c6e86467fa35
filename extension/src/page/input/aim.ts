/**
 * Keys are bound to what they were aimed at. CDP's keys go wherever the focus is when the browser delivers them, and
 * a page can move the focus at any moment: to another field of its own, into a frame of another site (one that keeps
 * stealing it), or away with the whole document (it navigates itself). So a key batch goes out only after the one
 * before it was delivered and the focus was seen still where it was aimed: on the target element (`type`, `fill`),
 * or, with no target (`type`, `press`), still in the document that had it, not gone into a frame or another document.
 * When it is not, delivery stops there, and the reply says how much went where: `input_diverted` or
 * `navigated_during_input`, `effect_state` committed (some input reached the page). At most the batch sent while
 * the focus moved can have gone elsewhere; the reply says so. The check fails closed: one that throws in the page or
 * answers nothing readable means "not aimed" (`input_diverted`, reason `focus_unknown`), never "go on".
 */
import { BskError } from "../../../../protocol/errors.ts";
import { sendTo } from "../../cdp/debugger.ts";
import { isGoneError } from "../../cdp/frames.ts";
import type { CdpTarget } from "../../cdp/refs/target.ts";
import type { KeyBinding } from "./keyboard.ts";

/** Where keys were aimed: the element (`objectId`) or the document of a world (`contextId`, keys to its focus). */
export type Aim = { target: CdpTarget; objectId: string } | { target: CdpTarget; contextId: number };

/**
 * Where the focus is now, in the aimed-at document; "1" when it is still where the keys were aimed: on the element,
 * or (`anywhere`, or no element) on anything of its document that is not a frame.
 */
function focusInPage(this: unknown, anywhere: boolean): string {
  const el = this instanceof Element ? this : null;
  const doc = el ? el.ownerDocument : document;
  let a = doc.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  const host = !!a && ["iframe", "frame", "object", "embed", "fencedframe", "portal"].includes(a.localName);
  if (el && !anywhere ? a === el && el.isConnected : !host) return "1";
  let said: [string, string] = ["", ""];
  try {
    if (a) said = JSON.parse((globalThis as any).__bsk.describe(a));
  } catch {
    /* no runtime: the tag name says enough */
  }
  return JSON.stringify({ role: said[0] || a?.localName || "nothing", name: said[1] || "", frame: host });
}
const FOCUS_FN = focusInPage.toString();

/**
 * Where the focus went instead; null while it is where the keys were aimed. `unknown`: the check itself failed (it
 * threw in the page, or answered nothing readable), so the keys are not known to be aimed any more (fail closed).
 */
type Moved = { role: string; name: string; frame: boolean } | { navigated: true } | { unknown: string };

async function movedFrom(aim: Aim, anywhere: boolean, signal?: AbortSignal): Promise<Moved | null> {
  try {
    // A plain call, awaiting no promise: a page held in a modal pause (print) answers it (paused-page.ts).
    const on = "objectId" in aim ? { objectId: aim.objectId } : { executionContextId: aim.contextId };
    const r = await sendTo<{ result?: { value?: unknown }; exceptionDetails?: unknown }>(
      aim.target,
      "Runtime.callFunctionOn",
      { ...on, functionDeclaration: FOCUS_FN, arguments: [{ value: anywhere }], returnByValue: true },
      signal,
    );
    if (r.exceptionDetails) return { unknown: "the focus check threw in the page" };
    if (typeof r.result?.value !== "string") return { unknown: "the focus check gave no answer" };
    const said = JSON.parse(r.result.value) as 1 | { role: string; name: string; frame: boolean };
    return said === 1 ? null : said;
  } catch (err) {
    if (err instanceof SyntaxError) return { unknown: "the focus check gave no readable answer" };
    // The aimed-at document is gone: the page navigated (or the frame went) while keys were going in.
    if (isGoneError(err)) return { navigated: true };
    throw err;
  }
}

/**
 * A binding of keys to `aim`. `what` names the target in the error ("textbox 'Secret'", "the focused element"),
 * `unit` what a batch is ("characters", "presses"), `total` how many batches the call would send. `anywhere`: the
 * focus may move within the aimed-at document (a key's own doing: Tab, a field that hands on to the next one), only
 * not into a frame or away with the document.
 */
export function bindKeys(tabId: number, aim: Aim, what: string, unit: string, total: number, anywhere: boolean): KeyBinding {
  return {
    after: async (batches, signal) => {
      const moved = await movedFrom(aim, anywhere, signal);
      if (!moved) return;
      // The last batch sent may have gone either way: the focus moved at some point after the check before it.
      const sure = batches - 1;
      const data = { tab_id: tabId, effect_state: "committed", delivered: sure, uncertain: 1, not_sent: total - batches, total };
      if ("navigated" in moved) {
        throw new BskError(
          "navigated_during_input",
          `the page navigated while keys went into ${what}: ${sure} of ${total} ${unit} went in before it, the next may have gone to the new page, and bsk sent no more`,
          { data },
        );
      }
      if ("unknown" in moved) {
        throw new BskError(
          "input_diverted",
          `bsk could not see where the focus is while keys went into ${what} (${moved.unknown}), so it took them as no longer aimed there: ${sure} of ${total} ${unit} went to ${what}, the next may have gone elsewhere, and bsk sent no more`,
          {
            hint: "bsk could not confirm the focus was still on the target, so it stopped: data says how many went in (delivered) and that one may have gone elsewhere. Re-observe; check the field before typing the rest.",
            data: { ...data, reason: "focus_unknown" },
          },
        );
      }
      const to = moved.frame
        ? `a frame (${moved.role}${moved.name ? ` "${moved.name}"` : ""})`
        : `${moved.role}${moved.name ? ` "${moved.name}"` : ""}`;
      throw new BskError(
        "input_diverted",
        `the focus left ${what} for ${to} while keys went in: ${sure} of ${total} ${unit} went to ${what}, the next may have gone to ${to}, and bsk sent no more`,
        { data: { ...data, focus: moved } },
      );
    },
  };
}
