/**
 * Commands the browser completes only once the page paints — a pointer move or a wheel turn (delivered with a
 * frame), a screenshot — never complete while the page is hidden for good (its window minimized, or covered where
 * the system tells the browser so). Rather than wait out the call's timeout, such a command that has not answered
 * within a second looks at the page: hidden, and not about to be shown (shown.ts), it fails at once, saying why.
 */
import { BskError } from "../../../protocol/errors.ts";
import { raceAbort } from "../shared/abort.ts";
import { mainFrameId, sendTo } from "../cdp/debugger.ts";
import { worldOf } from "../cdp/frames.ts";
import { paintsSoon } from "./shown.ts";

/** How long a frame-bound command may take before the page is looked at (a busy page may hold a frame this long). */
const PAINT_CHECK_MS = 1000;

/**
 * `sent` once it answers; `what` names it in the error. `input`: it is input, which the browser keeps and delivers
 * once the page is shown (the error says so; its effect_state is unknown).
 */
export async function painted<T>(tabId: number, what: string, sent: Promise<T>, signal?: AbortSignal, input = false): Promise<T> {
  sent.catch(() => undefined);
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const looked = new Promise<"look">((resolve) => (timer = setTimeout(() => resolve("look"), PAINT_CHECK_MS)));
    const r = await raceAbort(Promise.race([sent, looked]), signal).finally(() => clearTimeout(timer));
    if (r !== "look") return r as T;
    const hidden = (await visibility(tabId, signal)) === "hidden" && !paintsSoon(tabId);
    // It may have answered while the page was asked (a page busy for over a second answers both late).
    const late = await Promise.race([sent, Promise.resolve(LOOKING)]);
    if (late !== LOOKING) return late as T;
    if (hidden) throw pageHidden(tabId, what, input);
  }
}

const LOOKING = Symbol("looking");

/** Asked in bsk's isolated world: the page's own script cannot make the document say it is hidden or shown. */
async function visibility(tabId: number, signal?: AbortSignal): Promise<string | null> {
  try {
    const target = { tabId };
    const world = await worldOf(target, await mainFrameId(tabId, signal), signal);
    const r = await sendTo(
      target,
      "Runtime.evaluate",
      { expression: "document.visibilityState", contextId: world.contextId, returnByValue: true },
      signal,
    );
    return typeof r?.result?.value === "string" ? r.result.value : null;
  } catch {
    return null;
  }
}

function pageHidden(tabId: number, what: string, input: boolean): BskError {
  const later = input ? "; the browser keeps the input and delivers it when the page is shown" : "";
  return new BskError(
    "unsupported",
    `the page in tab ${tabId} is hidden (its window is minimized or covered), so ${what} cannot finish${later}`,
    {
      data: { reason: "page_hidden", tab_id: tabId },
    },
  );
}
