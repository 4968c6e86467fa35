/**
 * What an action did, judged from what the browser reports between the input and a short settle after it:
 * armed before the input, it records main-frame navigation requests and commits (with the document's HTTP status),
 * tabs the page opened, dialogs, downloads, and DOM mutations seen by an observer in the page. The settle ends as
 * soon as the page has handled the input when it has no work queued for the next frame or task (the page-world work
 * registry, entrypoints/page-world/work.ts, says so), else after the frame after the input; longer only while a
 * navigation is starting (until it commits, bounded). Later effects reach the agent through the session's event
 * stream instead.
 */
import { browser } from "wxt/browser";
import type { Result } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";
import { raceAbort } from "../shared/abort.ts";
import { promptOf } from "./prompt-state.ts";
import { mainFrameId, onAttach, sendTo, subscribe } from "../cdp/debugger.ts";
import { ISOLATED_WORLD } from "../cdp/frames.ts";
import { EFFECT_BINDING, readNotice } from "./effect-notice.ts";
import { isDialogPending, onDialogOpen, openDialog, type OpenDialog } from "./dialogs.ts";
import { onKeptDownload } from "./download-news.ts";
import { installShownTabs, paintsSoon } from "./shown.ts";
import { sending } from "../session/input-mark.ts";
import { installDomProbe, type SettledRead } from "./dom-probe.ts";
import { afterFrame, READ_DOM_PROBE, type InputEnd } from "./settle-read.ts";
import type { CdpTarget } from "../cdp/refs/target.ts";

export type ActionEffect = Result<"click">["effect"];

/**
 * Where the page-side mutation observer lives: bsk's isolated world of the acted-on document, named by a context
 * or by an object in it (the acted-on element).
 */
export type DomProbe = { target: CdpTarget; contextId: number } | ElementProbe;

/** A probe named by the acted-on element; `after` (a function's source, `this` = the element, returning a JSON
 * string) runs in the same page call right after the frame, and its parsed answer lands in `read`. */
export interface ElementProbe {
  target: CdpTarget;
  objectId: string;
  after?: string;
  read?: unknown;
  /**
   * The read already made in the input's own page call (select chooses in the page), once the page had handled it:
   * the DOM changed, whether the input reached the document, whether it asked for a download. The settle then makes
   * no page call of its own.
   */
  settled?: SettledRead;
}

/** Waits for a navigation that has started to commit at most this long; a slower one is reported as started. */
const NAV_COMMIT_CAP_MS = 5000;
/** A page opened a tab (window.open, target=_blank): its id arrives through webNavigation shortly after. */
const NEW_TAB_CAP_MS = 1500;
const DOWNLOAD_CAP_MS = 1500;
/**
 * A page read that has not answered by now: when the page is navigating, the observer is read without it (the
 * navigation tells what happened); otherwise it is waited for up to FRAME_WAIT_MS, as a busy machine can hold a
 * page's next frame that long (a page hidden for good runs none, and is read then).
 */
const FRAME_CAP_MS = 150;
const FRAME_WAIT_MS = 1500;
/** Reading the new document's status; a page busy in a long script answers late. */
const STATUS_CAP_MS = 500;

/** Tab → the notice id of the probe armed last (a tab runs one call at a time). */
const armedNotices = new Map<number, string>();

/** A new notice id for the probe about to be armed in `tabId`'s main session; the watch created next expects it. */
export function armNotice(tabId: number): { binding: string; id: string } {
  const id = crypto.randomUUID();
  armedNotices.set(tabId, id);
  return { binding: EFFECT_BINDING, id };
}

/** Every attachment exposes the binding to bsk's world (existing and future documents). */
export function installEffectNotices(): void {
  onAttach((_tabId, send) => send("Runtime.addBinding", { name: EFFECT_BINDING, executionContextName: ISOLATED_WORLD }));
  installShownTabs();
}

interface Navigation {
  url: string;
  status: number | null;
}

export class EffectWatch {
  private requestedUrl: string | null = null;
  private started = false;
  private ended = false;
  private committed: { url: string; loaderId: string } | null = null;
  private sameDocUrl: string | null = null;
  private readonly statusByLoader = new Map<string, number>();
  private newTabHint = false;
  private readonly newTabs: number[] = [];
  private downloadHint: string | null = null;
  /**
   * The input asked for a download that no navigation tells of: the acted-on element is an <a download> link, or the
   * page's script clicked one (the probe heard it, page/dom-probe.ts).
   */
  private downloadAsked = false;
  private download: { url: string; suggested_filename?: string; id?: string } | null = null;
  private opened: OpenDialog | null = null;
  /** Whether the acted-on document received the input (from the probe's read; null: not known). */
  inputDelivered: boolean | null = null;
  /** The notice id this watch's probe was armed with, and what its notice said (EFFECT_BINDING). */
  private readonly notice: string | undefined;
  private noticed: { link: boolean } | null = null;
  /** The tab just came to the front (shown.ts): a hidden page is about to be shown, and its frame is waited for. */
  private readonly shown: boolean;
  /** Waiters to wake on any event (two can wait at once: the frame's read and a navigation starting). */
  private readonly wakers = new Set<() => void>();
  private readonly offs: (() => void)[] = [];

  private constructor(
    readonly tabId: number,
    private readonly mainFrame: string,
  ) {
    this.notice = armedNotices.get(tabId);
    armedNotices.delete(tabId);
    this.shown = paintsSoon(tabId, true);
    this.offs.push(subscribe(tabId, (m, p) => this.onEvent(m, p)));
    this.offs.push(
      onDialogOpen(tabId, (d) => {
        this.opened = d;
        this.poke();
      }),
    );
    const onTarget = (d: { sourceTabId: number; tabId: number }) => {
      if (d.sourceTabId !== tabId) return;
      this.newTabs.push(d.tabId);
      this.poke();
    };
    browser.webNavigation.onCreatedNavigationTarget.addListener(onTarget);
    this.offs.push(() => browser.webNavigation.onCreatedNavigationTarget.removeListener(onTarget));
    // A download bsk keeps for the session (its response taken, or its blob read): named by the id to save it by.
    this.offs.push(
      onKeptDownload(tabId, (d) => {
        this.download = { url: d.url, suggested_filename: d.name, id: d.id };
        this.poke();
      }),
    );
  }

  /** Starts recording; call before sending the input. */
  static async arm(tabId: number, signal?: AbortSignal): Promise<EffectWatch> {
    return new EffectWatch(tabId, await mainFrameId(tabId, signal));
  }

  dispose(): void {
    for (const off of this.offs.splice(0)) off();
    // An arming during the input (select chooses in its checks' page call) is this action's: no later watch takes it.
    armedNotices.delete(this.tabId);
    this.poke();
  }

  private onEvent(method: string, p: Record<string, any>): void {
    switch (method) {
      case "Page.frameRequestedNavigation":
        if (p.frameId !== this.mainFrame) return;
        if (p.disposition === "newTab" || p.disposition === "newWindow") this.newTabHint = true;
        else if (p.disposition === "download") this.downloadHint = String(p.url ?? "");
        else {
          this.started = true;
          this.requestedUrl = String(p.url ?? "");
        }
        break;
      case "Page.frameStartedNavigating":
        if (p.frameId !== this.mainFrame || p.navigationType === "sameDocument") return;
        this.started = true;
        this.requestedUrl ??= String(p.url ?? "");
        break;
      case "Page.frameStartedLoading":
        if (p.frameId === this.mainFrame) this.started = true;
        break;
      case "Page.frameStoppedLoading":
        if (p.frameId === this.mainFrame && this.started) this.ended = true;
        break;
      case "Page.frameNavigated":
        if (p.frame?.parentId) return;
        this.committed = { url: p.frame.url + (p.frame.urlFragment ?? ""), loaderId: p.frame.loaderId };
        break;
      case "Page.navigatedWithinDocument":
        if (p.frameId === this.mainFrame) this.sameDocUrl = String(p.url);
        break;
      case "Network.responseReceived":
        if (p.type === "Document" && p.frameId === this.mainFrame) this.statusByLoader.set(p.loaderId, p.response?.status);
        break;
      case "Page.windowOpen":
        this.newTabHint = true;
        break;
      case "Runtime.bindingCalled": {
        const told = readNotice(p, this.notice);
        if (!told) return;
        this.noticed = told;
        break;
      }
      case "Page.downloadWillBegin":
        if (this.download?.id && this.download.url === String(p.url ?? "")) break;
        this.download = { url: String(p.url ?? ""), ...(p.suggestedFilename && { suggested_filename: String(p.suggestedFilename) }) };
        break;
      default:
        return;
    }
    this.poke();
  }

  /**
   * A dialog opened since arming (none was open then: the dispatcher refuses calls while one is). Read from the
   * tab's state too, since another listener of the same event (the call's dialog guard) may already have ended the
   * call before this watch's listener ran.
   */
  private get dialog(): OpenDialog | null {
    return this.opened ?? openDialog(this.tabId) ?? null;
  }

  private poke(): void {
    for (const wake of [...this.wakers]) wake();
  }

  /** Resolves once `done()` holds, or after `ms`. */
  private async until(done: () => boolean, ms: number, signal: AbortSignal): Promise<void> {
    const deadline = performance.now() + ms;
    while (!done() && !this.dialog) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let wake: () => void = () => {};
      await raceAbort(
        new Promise<void>((resolve) => {
          wake = resolve;
          this.wakers.add(wake);
          timer = setTimeout(resolve, left);
        }),
        signal,
      ).finally(() => {
        clearTimeout(timer);
        this.wakers.delete(wake);
      });
    }
  }

  /** One animation frame in the acted-on document; returns whether the DOM changed (null: unknown). */
  private async frame(
    probe: DomProbe | null,
    signal: AbortSignal,
    along: { sent: Promise<unknown>; end: InputEnd } | null,
  ): Promise<boolean | null> {
    if (!probe) return null;
    if ("objectId" in probe && probe.settled) {
      const [dom, delivered, downloading] = probe.settled;
      this.inputDelivered = delivered;
      if (downloading) this.downloadAsked = true;
      return dom;
    }
    const after = "objectId" in probe ? probe.after : undefined;
    // The page already told of a change: the answer cannot change, and there is nothing else to read back.
    if (this.noticed && !after) return true;
    const evaluate = (expression: string, awaitPromise: boolean) =>
      ("objectId" in probe
        ? sendTo(
            probe.target,
            "Runtime.callFunctionOn",
            {
              objectId: probe.objectId,
              // Also whether the element is an <a download> link: its download starts after a round trip to the
              // server, with no navigation to tell of it, so the settle waits for it (same page call, no extra trip).
              functionDeclaration: `function () { const after = ${after ?? "null"}; const link = !!(this.closest && this.closest("a[download][href]")); return Promise.resolve(${expression}).then((dom) => JSON.stringify([dom, link, after && after.call(this)])); }`,
              awaitPromise: true,
              returnByValue: true,
            },
            signal,
          )
        : sendTo(probe.target, "Runtime.evaluate", { expression, contextId: probe.contextId, awaitPromise, returnByValue: true }, signal)
      ).then((r) => {
        let v: unknown = r?.result?.value;
        if ("objectId" in probe && typeof v === "string") {
          const [dom, link, read] = JSON.parse(v) as [unknown, boolean, string | null];
          if (after && read !== null) probe.read = JSON.parse(read);
          if (link) this.downloadAsked = true;
          v = dom;
        }
        if (v === "again") return "again" as const;
        if (Array.isArray(v)) {
          this.inputDelivered = v[1] === null ? null : v[1] === true;
          if (v[2] === true) this.downloadAsked = true;
          v = v[0];
        }
        return typeof v === "boolean" ? v : null;
      });
    try {
      // A read sent along with the input waits in the page for the input: its cap runs from the input's answer.
      const capped = (expression: string, from: Promise<unknown> | null) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<"late">((resolve) => {
          const start = () => (timer = setTimeout(() => resolve("late"), FRAME_CAP_MS));
          if (from) from.then(start, start);
          else start();
        });
        const answer = evaluate(expression, true);
        return Promise.race([answer, late])
          .finally(() => clearTimeout(timer))
          .then(async (r) => {
            // Not navigating: a visible page's frame is only late (a busy machine); its answer is waited for.
            if (r !== "late" || (this.started && !this.committed)) return r;
            let wait: ReturnType<typeof setTimeout> | undefined;
            const longer = new Promise<"late">((resolve) => (wait = setTimeout(() => resolve("late"), FRAME_WAIT_MS - FRAME_CAP_MS)));
            const started = this.until(() => this.started && !this.committed, FRAME_WAIT_MS - FRAME_CAP_MS, signal).then(
              () => "late" as const,
              () => "late" as const,
            );
            return Promise.race([answer, longer, started]).finally(() => clearTimeout(wait));
          });
      };
      const settled = afterFrame(null, !!after, this.shown);
      let first = await capped(along ? afterFrame(along.end, !!after, this.shown) : settled, along?.sent ?? null);
      if (first === "again") {
        await along?.sent.catch(() => undefined);
        first = await capped(settled, null);
      }
      if (first !== "late") return first === "again" ? null : first;
      // A document whose navigation has started (a slow server) answers page calls only once the new one commits:
      // then whether its DOM changed is unknown, and the navigation tells what happened.
      const read = evaluate(READ_DOM_PROBE, false) as Promise<boolean | null>;
      const answered = new AbortController();
      const navigating = this.until(
        () => this.started && !this.committed,
        NAV_COMMIT_CAP_MS,
        AbortSignal.any([signal, answered.signal]),
      ).then(
        () => (this.started && !this.committed ? null : read),
        () => read,
      );
      navigating.catch(() => undefined);
      return await Promise.race([read, navigating]).finally(() => answered.abort());
    } catch (err) {
      if (isDialogPending(err) || signal.aborted) throw err;
      // The document went away under the observer: it was replaced.
      return true;
    }
  }

  private async status(signal: AbortSignal): Promise<number | null> {
    const loaderId = this.committed?.loaderId;
    const known = loaderId ? this.statusByLoader.get(loaderId) : undefined;
    if (known !== undefined) return known || null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const capped = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), STATUS_CAP_MS)));
    const read = sendTo(
      { tabId: this.tabId },
      "Runtime.evaluate",
      { expression: `performance.getEntriesByType("navigation")[0]?.responseStatus ?? 0`, returnByValue: true },
      signal,
    ).then((r) => (typeof r?.result?.value === "number" && r.result.value > 0 ? (r.result.value as number) : null));
    try {
      return await Promise.race([read, capped]);
    } catch (err) {
      if (isDialogPending(err) || signal.aborted) throw err;
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Settles after the input was sent and report what happened. `signal` may be the call's dialog guard: a dialog
   * opening ends the settle at once and is the effect. `along`: the input's answer and its last events, when the
   * settle starts right behind the input (withEffect's readAlong), so the page's read may arrive before the input.
   */
  async settle(
    signal: AbortSignal,
    probe: DomProbe | null,
    along: { sent: Promise<unknown>; end: InputEnd } | null = null,
  ): Promise<ActionEffect> {
    let dom: boolean | null = null;
    let navigation: Navigation | null = null;
    try {
      dom = await this.frame(probe, signal, along);
      // What the input started is news by its answer (the renderer sends its events first): never judged before it.
      if (along) await along.sent.catch(() => undefined);
      if (this.started && !this.committed && !this.dialog) {
        await this.until(() => this.committed !== null || this.ended || this.downloadStarted(), NAV_COMMIT_CAP_MS, signal);
      }
      if (this.newTabHint && this.newTabs.length === 0) await this.until(() => this.newTabs.length > 0, NEW_TAB_CAP_MS, signal);
      if ((this.downloadHint !== null || this.downloadAsked || this.noticed?.link) && !this.download)
        await this.until(() => this.download !== null, DOWNLOAD_CAP_MS, signal);
      if (this.committed && !this.dialog) navigation = { url: this.committed.url, status: await this.status(signal) };
    } catch (err) {
      if (!isDialogPending(err)) throw err;
    } finally {
      this.dispose();
    }
    if (!navigation) {
      if (this.committed) navigation = { url: this.committed.url, status: null };
      else if (this.sameDocUrl !== null) navigation = { url: this.sameDocUrl, status: null };
      // Started and still on its way (a slow server): reported as started, status unknown.
      // (A navigation that turned into a download is the download.)
      else if (this.started && !this.ended && !this.download && this.requestedUrl) navigation = { url: this.requestedUrl, status: null };
    }
    return this.report(dom, navigation);
  }

  private downloadStarted(): boolean {
    return this.download !== null;
  }

  private report(dom: boolean | null, navigation: Navigation | null): ActionEffect {
    const download = this.download ?? (this.downloadHint !== null ? { url: this.downloadHint } : null);
    // A new document is a changed DOM; a same-document navigation (fragment, pushState) need not be.
    const domChanged = dom === true || this.committed !== null;
    const effect: ActionEffect = { kind: "none", dom_changed: domChanged };
    if (this.dialog) effect.dialog = { type: this.dialog.type, message: this.dialog.message };
    if (navigation) effect.navigation = navigation;
    if (this.newTabs.length) effect.new_tab_ids = [...new Set(this.newTabs)];
    if (download) effect.download = download;
    // Asked for and waited for (DOWNLOAD_CAP_MS), but not begun: said, so a click is not taken for one that did nothing.
    else if ((this.downloadAsked || this.noticed?.link) && !navigation && !effect.new_tab_ids && !effect.dialog)
      effect.download_not_started = true;
    effect.kind = effect.dialog
      ? "dialog"
      : navigation
        ? "navigated"
        : effect.new_tab_ids
          ? "new_tab"
          : download
            ? "download"
            : domChanged
              ? "dom_changed"
              : "none";
    return effect;
  }
}

/** Arms the DOM observer in the document of an element (actions whose page call does not arm it itself). */
export async function armElementProbe(el: { cdp: CdpTarget; objectId: string }, signal?: AbortSignal): Promise<void> {
  const notice = armNotice(el.cdp.tabId);
  await sendTo(
    el.cdp,
    "Runtime.callFunctionOn",
    {
      objectId: el.objectId,
      functionDeclaration: `function (notice) { (${installDomProbe.toString()})(this, null, notice); }`,
      arguments: [{ value: notice }],
    },
    signal,
  );
}

/**
 * Arms a watch, sends the input, settles; a `probe` known only once the input ran is given as a function. A dialog that
 * opens during the input (the call's signal aborts with dialog_pending) is the effect, not an error. `verify`: the probe's document is where the input goes (an element's
 * own), so input it never received with nothing else seen fails with input_not_delivered (effect_state none); the
 * check rides on the settle's page call.
 */
export async function withEffect(
  tabId: number,
  probe: DomProbe | null | (() => DomProbe | null),
  signal: AbortSignal,
  input: () => Promise<unknown>,
  opts: { verify?: boolean; readAlong?: InputEnd } = {},
): Promise<ActionEffect> {
  const watch = await EffectWatch.arm(tabId, signal);
  // readAlong (the input's last events): the settle's read goes to the page just ahead of the input, waits there for
  // the input's last events, and answers once the page has handled them: no round trip after the input's answer, and
  // no frame the renderer runs first. Only for input whose last events bsk knows, all delivered to the probe's
  // document: fill's text (one input event), keys (their keyups).
  let settling: Promise<ActionEffect> | undefined;
  const along = new AbortController();
  let answered: (sent: Promise<void>) => void = () => {};
  if (opts.readAlong && typeof probe !== "function") {
    const later = new Promise<void>((resolve) => (answered = resolve));
    settling = watch.settle(AbortSignal.any([signal, along.signal]), probe, { sent: later, end: opts.readAlong });
    settling.catch(() => undefined);
  }
  const sent = sending({ tabId }, input).then(
    () => undefined,
    (err: unknown) => {
      if (!isDialogPending(err)) throw err;
    },
  );
  answered(sent);
  try {
    await sent;
  } catch (err) {
    along.abort();
    watch.dispose();
    throw err;
  }
  const effect = await (settling ?? watch.settle(signal, typeof probe === "function" ? probe() : probe));
  if (opts.verify && watch.inputDelivered === false && effect.kind === "none" && !effect.dom_changed) throw inputNotDelivered(tabId);
  return effect;
}

/**
 * Input the browser took but never gave the page (a prompt or print dialog over the tab, a frozen page, browser UI
 * covering it): nothing happened, and the reply must not say the action was done.
 */
function inputNotDelivered(tabId: number): BskError {
  const prompt = promptOf(tabId);
  const why = prompt ? `: the browser's ${prompt.kind} prompt is up` : "";
  return new BskError("input_not_delivered", `the page in tab ${tabId} received none of the input${why}; nothing happened`, {
    data: { tab_id: tabId, effect_state: "none", ...(prompt && { prompt: { kind: prompt.kind, url: prompt.url, detail: prompt.detail } }) },
  });
}
