/**
 * download: click the target and claim exactly the download that click caused. The tab's CDP sessions report the
 * download's URL (Page.downloadWillBegin), which picks the one new chrome.downloads item that is the click's.
 * Where it is saved: onDeterminingFilename steers the match into `bsk-<session>/` of the browser's download folder;
 * others get no suggestion. (The daemon also names a private folder for the tab's download behaviour, but
 * chrome.debugger refuses Page.setDownloadBehavior to extensions — "browser-level" — so that is tried and skipped.)
 * "Ask where to save" cannot be skipped by an extension: neither a filename suggestion nor downloads.download with
 * saveAs: false bypasses it (measured), so a download the prompt cancels fails with download_prompted. Once complete,
 * the download is erased from the browser's list; the daemon, on the same machine, takes the file from the path the
 * browser reports.
 */
import { browser, type Browser } from "wxt/browser";
import type { ParsedParams, Result } from "../../../protocol/catalog.ts";
import { BskError } from "../../../protocol/errors.ts";
import { raceAbort } from "../abort.ts";
import { actedOn, actionable } from "../actionability.ts";
import { sendTo } from "../cdp.ts";
import { withEffect } from "../effects.ts";
import { click } from "../input/mouse.ts";
import { resolveTarget } from "../refs/resolve.ts";
import { resolveTab } from "../sessions.ts";
import { onTabEvent } from "./cdp-events.ts";

type DownloadItem = Browser.downloads.DownloadItem;

/** How long a new download is held waiting for the click's download URL before it goes its usual way. */
const HOLD_MS = 3000;
/** After the click's settle, how long the download may take to start. */
const START_WAIT_MS = 5000;

function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const clean = base.replace(/[\u0000-\u001f<>:"|?*]/g, "_").replace(/^\.+/, "").slice(-150);
  return clean || "download";
}

class Claim {
  private readonly urls: { url: string; name?: string }[] = [];
  private readonly held: { item: DownloadItem; suggest: (s?: Browser.downloads.FilenameSuggestion) => void; timer: ReturnType<typeof setTimeout> }[] = [];
  claimed: DownloadItem | null = null;
  private readonly created: DownloadItem[] = [];
  /** Called once the click's download has started (its place is decided by then). */
  onClaim: () => void = () => {};
  private wake: (() => void) | null = null;
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly sessionId: string,
    tabId: number,
  ) {
    this.offs.push(
      onTabEvent(tabId, "Page.downloadWillBegin", (_s, p) => {
        this.urls.push({ url: String(p.url ?? ""), name: p.suggestedFilename });
        for (const h of [...this.held]) this.match(h);
        this.matchCreated();
      }),
    );
    const onCreated = (item: DownloadItem) => {
      this.created.push(item);
      this.matchCreated();
    };
    browser.downloads.onCreated.addListener(onCreated);
    this.offs.push(() => browser.downloads.onCreated.removeListener(onCreated));
    const onDetermine = (item: DownloadItem, suggest: (s?: Browser.downloads.FilenameSuggestion) => void): boolean => {
      const h = { item, suggest, timer: setTimeout(() => this.letGo(h), HOLD_MS) };
      this.held.push(h);
      this.match(h);
      return true;
    };
    browser.downloads.onDeterminingFilename.addListener(onDetermine);
    this.offs.push(() => browser.downloads.onDeterminingFilename.removeListener(onDetermine));
  }

  private matches(item: DownloadItem): { url: string; name?: string } | undefined {
    return this.urls.find((u) => u.url === item.url || u.url === item.finalUrl);
  }

  private claim(item: DownloadItem): void {
    this.claimed = item;
    this.onClaim();
    this.wake?.();
  }

  /** A download saved where the tab's download behaviour says: onCreated is all that is heard of it. */
  private matchCreated(): void {
    if (this.claimed) return;
    const item = this.created.find((i) => this.matches(i));
    if (item) this.claim(item);
  }

  private match(h: (typeof this.held)[number]): void {
    const u = this.matches(h.item);
    if (!u) return;
    this.release(h);
    if (this.claimed && this.claimed.id !== h.item.id) return h.suggest();
    const name = safeName(h.item.filename || u.name || "download");
    h.suggest({ filename: `bsk-${this.sessionId}/${crypto.randomUUID()}-${name}`, conflictAction: "uniquify" });
    if (!this.claimed) this.claim(h.item);
  }

  private release(h: (typeof this.held)[number]): void {
    clearTimeout(h.timer);
    const i = this.held.indexOf(h);
    if (i !== -1) this.held.splice(i, 1);
  }

  private letGo(h: (typeof this.held)[number]): void {
    this.release(h);
    h.suggest();
  }

  async waitClaimed(ms: number, signal: AbortSignal): Promise<DownloadItem | null> {
    const until = performance.now() + ms;
    while (!this.claimed && performance.now() < until) {
      await raceAbort(
        new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, Math.max(0, until - performance.now()));
        }),
        signal,
      );
    }
    return this.claimed;
  }

  /** What the click asked for, for an error message. */
  get seenUrls(): string[] {
    return this.urls.map((u) => u.url);
  }

  dispose(): void {
    for (const off of this.offs.splice(0)) off();
    for (const h of [...this.held]) this.letGo(h);
  }
}

/** Resolves with the finished item; an interrupted download is an error. */
async function finished(id: number, signal: AbortSignal): Promise<DownloadItem> {
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  const onChanged = (d: Browser.downloads.DownloadDelta) => {
    if (d.id !== id || !d.state) return;
    if (d.state.current === "complete") resolve();
    else if (d.state.current === "interrupted") reject(interrupted(d.error?.current));
  };
  browser.downloads.onChanged.addListener(onChanged);
  try {
    const [now] = await browser.downloads.search({ id });
    if (now?.state === "complete") resolve();
    else if (now?.state === "interrupted") reject(interrupted(now.error));
    else if (!now) reject(interrupted("the download is gone from the browser"));
    await raceAbort(promise, signal);
    const [done] = await browser.downloads.search({ id });
    if (!done) throw interrupted("the download is gone from the browser");
    return done;
  } finally {
    browser.downloads.onChanged.removeListener(onChanged);
  }
}

function interrupted(why: unknown): BskError {
  if (why === "USER_CANCELED") {
    return new BskError("unsupported", "the browser asked where to save the download, and the download was cancelled there; nothing was saved", {
      hint: "Chrome's \"Ask where to save each file before downloading\" is on, and no extension can skip that prompt: ask the person to turn it off (Settings > Downloads), or to save it for you (bsk request-help).",
      data: { reason: "download_prompted", effect_state: "none" },
    });
  }
  return new BskError("cdp_failed", `the download failed: ${String(why ?? "interrupted")}`, {
    hint: "Check the link in the page (bsk network shows the request), then retry.",
    data: { reason: "download_failed", effect_state: "none", cause: String(why ?? "interrupted") },
  });
}

export async function download(p: ParsedParams<"download">, signal: AbortSignal): Promise<Result<"download">> {
  const r = await resolveTab(p);
  if (!r.tab.active) await browser.tabs.update(r.tabId, { active: true });
  const tabId = r.tabId;
  const rt = await resolveTarget(p.session_id, tabId, p.target, signal);
  const at = await actionable(rt, { hitTest: true, enabled: true, probe: true }, signal);
  const claim = new Claim(p.session_id, tabId);
  const restore = p.download_dir ? await steer(tabId, p.download_dir, signal) : async () => {};
  claim.onClaim = () => void restore();
  let item: DownloadItem | null = null;
  try {
    const effect = await withEffect(tabId, { target: rt.cdp, objectId: rt.objectId }, signal, () =>
      click(tabId, at.x, at.y, { button: "left", count: 1, modifiers: [] }, signal),
    );
    item = await claim.waitClaimed(effect.kind === "download" || claim.seenUrls.length ? START_WAIT_MS : 1000, signal);
    if (!item) {
      throw new BskError("unsupported", `clicking ${rt.ref ?? rt.role} "${rt.name}" started no download; nothing was saved`, {
        hint: "Target the link or button that downloads (bsk snapshot); a page that opens a viewer instead needs its own download button.",
        data: { reason: "no_download", effect_state: "none", effect, urls: claim.seenUrls },
      });
    }
    const done = await finished(item.id, signal);
    await browser.downloads.erase({ id: item.id });
    const name = done.filename.split(/[\\/]/).pop()!.replace(/^[0-9a-f-]{36}-/, "");
    return {
      tab_id: tabId,
      target: actedOn(rt),
      effect,
      url: done.finalUrl || done.url,
      name,
      mime: done.mime ?? "",
      size: done.fileSize,
      local_path: done.filename,
      effect_state: "committed",
    };
  } catch (err) {
    if (item) {
      const id = item.id;
      // Nothing half-done is left in the browser: a download still running is cancelled and its file removed.
      await browser.downloads.cancel(id).catch(() => undefined);
      await browser.downloads.removeFile(id).catch(() => undefined);
      await browser.downloads.erase({ id }).catch(() => undefined);
    }
    throw err;
  } finally {
    claim.dispose();
    await restore();
  }
}

/**
 * Points the tab's downloads at `dir` without asking; returns how to put the browser's own behaviour back (once).
 * It applies to the whole profile, so it is held only until the click's download has started.
 */
async function steer(tabId: number, dir: string, signal: AbortSignal): Promise<() => Promise<void>> {
  try {
    await sendTo({ tabId }, "Page.setDownloadBehavior", { behavior: "allow", downloadPath: dir }, signal);
  } catch {
    return async () => {};
  }
  let done: Promise<void> | null = null;
  return () => (done ??= sendTo({ tabId }, "Page.setDownloadBehavior", { behavior: "default" }).then(() => undefined, () => undefined));
}
