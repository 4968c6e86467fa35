/** emulate (per tab, through the Emulation domain) and window.resize (the session's own Agent Window). */
import { browser } from "wxt/browser";
import { BskError } from "../../../protocol/errors.ts";
import type { emulationMethods } from "../../../protocol/methods/emulation.ts";
import { send, subscribe } from "../cdp/debugger.ts";
import { dialogGuard } from "../page/dialogs.ts";
import { mergeEmulation, touchesMetrics, type EmulationState } from "../features/emulation/devices.ts";
import { requireSession, resolveTab } from "../session/sessions.ts";
import type { FamilyHandlers } from "../shared/handler.ts";
import { sending } from "../session/input-mark.ts";

/** What each tab was told to emulate. CDP overrides end with the debugger's attachment, and so does this. */
const states = new Map<number, EmulationState>();

function remember(tabId: number, state: EmulationState | null): void {
  if (!state) {
    states.delete(tabId);
    return;
  }
  if (!states.has(tabId)) {
    const off = subscribe(
      tabId,
      () => undefined,
      () => {
        off();
        states.delete(tabId);
      },
    );
  }
  states.set(tabId, state);
}

const chromeMajor = () => /Chrome\/(\d+)/.exec(navigator.userAgent)?.[1] ?? "130";

interface PageView {
  width: number;
  height: number;
  dpr: number;
  ua: string;
  touchPoints: number;
}

const VIEW = `JSON.stringify([innerWidth, innerHeight, devicePixelRatio, navigator.userAgent, navigator.maxTouchPoints])`;

/** The viewport as the page sees it; with `changedFrom`, waits (≤ 1 s) for the resize the page is about to get. */
async function pageView(tabId: number, signal: AbortSignal, changedFrom?: PageView): Promise<PageView> {
  const expression = changedFrom
    ? `new Promise((resolve) => {
        const done = () => resolve(${VIEW});
        if (innerWidth !== ${changedFrom.width} || innerHeight !== ${changedFrom.height}) return done();
        addEventListener("resize", done, { once: true });
        setTimeout(done, 1000);
      })`
    : VIEW;
  const r = await send(tabId, "Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true }, signal);
  if (r.exceptionDetails || typeof r.result?.value !== "string") {
    throw new BskError("cdp_failed", `cannot read the viewport of tab ${tabId}`, {
      data: { reason: "viewport_unreadable", tab_id: tabId },
    });
  }
  const [width, height, dpr, ua, touchPoints] = JSON.parse(r.result.value) as [number, number, number, string, number];
  return { width, height, dpr, ua, touchPoints };
}

/** The page's view, or undefined when the page cannot answer (a JS dialog is open or opens meanwhile). */
async function viewIfAnswering(tabId: number, signal: AbortSignal, changedFrom?: PageView): Promise<PageView | undefined> {
  try {
    const guard = dialogGuard(tabId, signal);
    try {
      return await pageView(tabId, guard.signal, changedFrom);
    } finally {
      guard.dispose();
    }
  } catch (err) {
    if (signal.aborted) throw err;
    return undefined;
  }
}

function uaMetadataBrands(): { brand: string; version: string }[] | undefined {
  const data = (navigator as Navigator & { userAgentData?: { brands?: { brand: string; version: string }[] } }).userAgentData;
  return data?.brands?.map((b) => ({ brand: b.brand, version: b.version }));
}

async function apply(tabId: number, s: EmulationState, signal: AbortSignal): Promise<void> {
  const calls: Promise<unknown>[] = [];
  if (touchesMetrics(s)) {
    const metrics: Record<string, unknown> = {
      // 0 leaves that dimension (or ratio) as the window has it.
      width: s.width ?? 0,
      height: s.height ?? 0,
      deviceScaleFactor: s.dpr ?? 0,
      mobile: s.mobile ?? false,
    };
    if (s.width !== undefined && s.height !== undefined) Object.assign(metrics, { screenWidth: s.width, screenHeight: s.height });
    if (s.mobile) metrics.screenOrientation = { type: "portraitPrimary", angle: 0 };
    calls.push(send(tabId, "Emulation.setDeviceMetricsOverride", metrics, signal));
  }
  if (s.touch !== undefined) calls.push(send(tabId, "Emulation.setTouchEmulationEnabled", { enabled: s.touch, maxTouchPoints: 5 }, signal));
  if (s.userAgent !== undefined) {
    const params: Record<string, unknown> = { userAgent: s.userAgent };
    if (s.userAgent && s.metadata) params.userAgentMetadata = { ...s.metadata, brands: uaMetadataBrands() };
    calls.push(send(tabId, "Emulation.setUserAgentOverride", params, signal));
  }
  await Promise.all(calls);
}

async function clear(tabId: number, signal: AbortSignal): Promise<void> {
  await Promise.all([
    send(tabId, "Emulation.clearDeviceMetricsOverride", {}, signal),
    send(tabId, "Emulation.setTouchEmulationEnabled", { enabled: false }, signal),
    // An empty user agent removes the override: the browser's own comes back.
    send(tabId, "Emulation.setUserAgentOverride", { userAgent: "" }, signal),
  ]);
}

export const emulationHandlers: FamilyHandlers<typeof emulationMethods> = {
  emulate: async (p, { signal }) => {
    const { tabId } = await resolveTab(p);
    const given = [p.device, p.width, p.height, p.dpr, p.mobile, p.touch, p.user_agent].some((v) => v !== undefined);
    if (p.off && given) {
      throw new BskError("invalid_params", "--off clears all emulation; it takes no device or field", {
        hint: "Run bsk emulate --off alone, then emulate again with what you want.",
      });
    }
    if (!p.off && !given) {
      throw new BskError("invalid_params", "nothing to emulate", {
        hint: "Give --device (e.g. iphone-14), fields (--width, --height, --dpr, --mobile, --touch, --ua), or --off.",
      });
    }
    let state: EmulationState | null = null;
    if (p.off) {
      await sending({ tabId }, () => clear(tabId, signal));
    } else {
      const next = mergeEmulation(states.get(tabId) ?? {}, p, chromeMajor());
      state = next;
      await sending({ tabId }, () => apply(tabId, next, signal));
    }
    remember(tabId, state);
    const view = await pageView(tabId, signal);
    return {
      tab_id: tabId,
      emulating: state !== null,
      viewport: { width: view.width, height: view.height, dpr: view.dpr, mobile: state?.mobile ?? false },
      touch: view.touchPoints > 0,
      user_agent: view.ua,
    };
  },

  "window.resize": async (p, { signal }) => {
    const s = requireSession(p.session_id);
    if (s.group_id !== undefined) {
      throw new BskError(
        "permission_denied",
        `session ${s.session_id} lives in a tab group in the person's own window; bsk does not resize it`,
        {
          hint: "Emulate a viewport instead: bsk emulate --width W --height H.",
          data: { reason: "group_session" },
        },
      );
    }
    const before = await browser.windows.get(s.window_id).catch(() => undefined);
    if (!before) {
      throw new BskError("not_found", `the Agent Window of session ${s.session_id} is gone`, { data: { reason: "session_ended" } });
    }
    // The viewport is reported for the current tab when it is shown in the Agent Window.
    const current = await resolveTab({ session_id: s.session_id }).catch(() => undefined);
    const tabId = current && current.tab.windowId === s.window_id ? current.tabId : undefined;
    const viewBefore = tabId !== undefined ? await viewIfAnswering(tabId, signal) : undefined;

    const after = await sending({ sessionId: s.session_id }, () =>
      browser.windows.update(s.window_id, { state: "normal", width: p.width, height: p.height }),
    );
    const result: { window_id: number; width: number; height: number; viewport?: { width: number; height: number } } = {
      window_id: s.window_id,
      width: after.width ?? p.width,
      height: after.height ?? p.height,
    };
    if (tabId !== undefined && viewBefore) {
      // The page hears of the new size a moment later, unless emulation pins its viewport or nothing changed.
      const changes = (after.width !== before.width || after.height !== before.height) && !touchesMetrics(states.get(tabId) ?? {});
      const view = await viewIfAnswering(tabId, signal, changes ? viewBefore : undefined);
      if (view) result.viewport = { width: view.width, height: view.height };
    }
    return result;
  },
};
