/**
 * download: click the target and save exactly the download that click caused. Its bytes come from one of three
 * places, whichever the click produces first:
 *  - the response itself (download-tap.ts): a document response that is a download is read before the browser's
 *    download manager sees it — no file in the person's folder, no "Ask where to save" prompt, nothing fetched twice;
 *  - the page's memory (page-blob.ts): a blob: or data: URL download, read from the page's Blob;
 *  - the browser (download-claim.ts): anything else (a download started in an out-of-process frame, a Blob the page
 *    can no longer read) is steered into `bsk-<session>/` of the browser's download folder, erased from the list
 *    once complete, and taken by the daemon from there (same machine only). With "Ask where to save" on, only this
 *    last way can end at the prompt; it then fails with download_prompted. For a remote agent's session the finished
 *    item's bytes are fetched again by the frame that asked for them, when provably the same (browser-item.ts), and
 *    the browser's file and item are removed.
 * A download over the daemon's caps fails with the daemon's own error (file_too_large, session_quota).
 * The browser's own item for a download whose bytes were taken is cancelled while its name is being decided.
 */
import { browser, type Browser } from "wxt/browser";
import type { ParsedParams, Result } from "../../../../protocol/catalog.ts";
import { BskError } from "../../../../protocol/errors.ts";
import { raceAbort } from "../../shared/abort.ts";
import { actedOn, actionable } from "../../page/actionability.ts";
import { sendTo } from "../../cdp/debugger.ts";
import { type ActionEffect, withEffect } from "../../page/effects.ts";
import { click } from "../../page/input/mouse.ts";
import type { CdpTarget, ResolvedTarget } from "../../cdp/refs/target.ts";
import { resolveTarget } from "../../cdp/refs/resolve.ts";
import { assertSessionMayOpen, isFileUrl } from "../../session/file-urls.ts";
import { getSession, resolveTab } from "../../session/sessions.ts";
import { refetchItem, TabRequests } from "./browser-item.ts";
import { Claim, type DownloadItem, type Routing } from "./download-claim.ts";
import { ResponseTap } from "./download-tap.ts";
import { PageBlobs } from "./page-blob.ts";
import { type Finished, isCapRefusal } from "./transfer-out.ts";
import type { Progress } from "../../shared/handler.ts";

/** After the click's settle, how long a download the click announced may take to start. */
const START_WAIT_MS = 5000;

type Got = { kind: "transfer"; url: string; name: string; mime: string; out: Finished } | { kind: "browser"; item: DownloadItem };

/** The first source to offer its work is the click's download; later offers are refused before they start. */
class First<T> {
  work: Promise<T> | null = null;
  private wake: (() => void) | null = null;

  offer(start: () => Promise<T>): boolean {
    if (this.work) return false;
    this.work = start();
    this.work.catch(() => undefined);
    this.wake?.();
    return true;
  }

  /** Whether a source offered its work within `ms`; its outcome is `work`'s (an async function would adopt it). */
  async started(ms: number, signal: AbortSignal): Promise<boolean> {
    if (!this.work) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await raceAbort(
        new Promise<void>((resolve) => {
          this.wake = resolve;
          timer = setTimeout(resolve, ms);
        }),
        signal,
      ).finally(() => clearTimeout(timer));
    }
    return this.work !== null;
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
    return new BskError(
      "unsupported",
      "the browser asked where to save the download, and the download was cancelled there; nothing was saved",
      {
        hint: 'This download could not be taken from the page, and Chrome\'s "Ask where to save each file before downloading" is on: ask the person to turn it off (Settings > Downloads), or to save it for you (bsk request-help).',
        data: { reason: "download_prompted" },
      },
    );
  }
  return downloadFailed(why);
}

function incognitoBrowserDownload(): BskError {
  return new BskError(
    "unsupported",
    "this download could only go through the browser, which asks where to save every download of an incognito window (an isolated session); it was cancelled, nothing was saved",
    {
      hint: "Open the file's address in the session's own tab (bsk navigate, then bsk download on its link there), or ask the person to save it (bsk request-help).",
      data: { reason: "download_prompted", incognito: true },
    },
  );
}

function downloadFailed(why: unknown): BskError {
  const cause = why instanceof BskError ? why.message : String(why ?? "interrupted");
  return new BskError("cdp_failed", `the download failed: ${cause}`, {
    hint: "Check the link in the page (bsk network shows the request), then retry.",
    data: { reason: "download_failed", cause },
  });
}

/** The link the target is (or is in): its address, and the file name its download attribute asks for (null: none). */
async function linkOf(rt: ResolvedTarget, signal: AbortSignal): Promise<{ url: string; download: string | null } | undefined> {
  const r = await sendTo<{ result: { value?: unknown } }>(
    rt.cdp,
    "Runtime.callFunctionOn",
    {
      objectId: rt.objectId,
      functionDeclaration:
        "function () { const a = this.closest && this.closest('a[href]'); return a && a.href ? { url: a.href, download: a.hasAttribute('download') ? a.getAttribute('download') : null } : null; }",
      returnByValue: true,
    },
    signal,
  ).catch(() => null);
  const v = r?.result.value as { url?: unknown; download?: unknown } | null | undefined;
  if (!v || typeof v.url !== "string") return undefined;
  return { url: v.url, download: typeof v.download === "string" ? v.download : null };
}

/** The effect as the person would see it: a download, not the navigation the browser turned into one. */
function asDownload(effect: ActionEffect, url: string, name: string): ActionEffect {
  const out: ActionEffect = { ...effect, kind: effect.dialog ? "dialog" : "download", download: { url, suggested_filename: name } };
  if (out.navigation?.url === url || (out.navigation && out.navigation.status === null)) delete out.navigation;
  if (out.kind === "download" && out.new_tab_ids) out.kind = "new_tab";
  return out;
}

/** Cancels the browser's item if it still runs, deletes its file and takes it off the person's list; never fails. */
async function removeItem(id: number): Promise<void> {
  await browser.downloads.cancel(id).catch(() => undefined);
  await browser.downloads.removeFile(id).catch(() => undefined);
  await browser.downloads.erase({ id }).catch(() => undefined);
}

export async function download(p: ParsedParams<"download">, signal: AbortSignal, progress?: Progress): Promise<Result<"download">> {
  const r = await resolveTab(p);
  if (!r.tab.active) await browser.tabs.update(r.tabId, { active: true });
  const tabId = r.tabId;
  const rt = await resolveTarget(p.session_id, tabId, p.target, signal);
  const at = await actionable(rt, { hitTest: true, enabled: true, probe: true }, signal);
  const first = new First<Got>();
  let browserItem: number | null = null;
  const blobs = await PageBlobs.arm(rt, signal);
  // A remote agent's daemon cannot take a file from this machine: the browser's own download is fetched again.
  const requests = getSession(p.session_id)?.remote_host !== undefined ? new TabRequests(tabId) : null;

  const fromPage = async (item: DownloadItem, name: string, to: Routing): Promise<Got> => {
    try {
      const got = await blobs.take(item.url, p.session_id, name, signal, progress);
      to.cancel();
      return { kind: "transfer", url: item.url, name, mime: got.mime || item.mime || "", out: got.out };
    } catch (err) {
      if (signal.aborted) {
        to.cancel();
        throw err;
      }
      return fromBrowser(item, to, name);
    }
  };
  const fromBrowser = async (item: DownloadItem, to: Routing, name: string): Promise<Got> => {
    browserItem = item.id;
    to.steer();
    const done = await finished(item.id, signal);
    if (requests) return fromFinished(done, name);
    await browser.downloads.erase({ id: item.id });
    return { kind: "browser", item: done };
  };
  const fromFinished = async (done: DownloadItem, name: string): Promise<Got> => {
    const got = await refetchItem(done, requests!, p.session_id, name, signal, progress);
    await removeItem(done.id);
    browserItem = null;
    return { kind: "transfer", url: got.url, name, mime: got.mime, out: got.out };
  };

  let tap: ResponseTap | null = null;
  const claim = new Claim(p.session_id, tabId, (item, name, to) => {
    if (tap?.tookUrl(item.url) || tap?.tookUrl(item.finalUrl)) return to.cancel();
    if (/^(blob|data):/i.test(item.url) && first.offer(() => fromPage(item, name, to))) return;
    // An incognito window's browser downloads always ask where to save: cancelled before the prompt.
    if (item.incognito && first.offer(() => Promise.reject(incognitoBrowserDownload()))) return to.cancel();
    if (first.offer(() => fromBrowser(item, to, name))) return;
    to.pass();
  });
  try {
    const targets: CdpTarget[] = rt.cdp.sessionId ? [{ tabId }, rt.cdp] : [{ tabId }];
    const link = await linkOf(rt, signal);
    // A file: link is judged before the click, by the rule for opening it (the response tap refuses it too).
    if (link && isFileUrl(link.url)) await assertSessionMayOpen(r.session, link.url, tabId);
    // A link that opens its download in a new tab (target=_blank) is not this tab's: its item is known by address.
    if (link) claim.expect(link.url, undefined, { taken: false });
    tap = await ResponseTap.arm(
      tabId,
      targets,
      {
        sessionId: p.session_id,
        progress,
        link: link && link.download !== null ? { url: link.url, ...(link.download && { name: link.download }) } : undefined,
        offer: (head, start) => {
          const mine = first.offer(async () => {
            const t = await start();
            return { kind: "transfer", url: t.head.url, name: t.head.name, mime: t.head.mime, out: t.out };
          });
          if (mine) claim.expect(head.url, head.name);
          return mine;
        },
      },
      signal,
    );
    const effect = await withEffect(tabId, { target: rt.cdp, objectId: rt.objectId }, signal, () =>
      click(tabId, at.x, at.y, { button: "left", count: 1, modifiers: [] }, signal),
    );
    const announced = effect.kind === "download" || effect.new_tab_ids !== undefined || claim.seenUrls.length > 0;
    if (!(await first.started(announced ? START_WAIT_MS : 1000, signal))) {
      throw new BskError("unsupported", `clicking ${rt.ref ?? rt.role} "${rt.name}" started no download; nothing was saved`, {
        hint: "Target the link or button that downloads (bsk snapshot); a page that opens a viewer instead needs its own download button.",
        data: { reason: "no_download", effect, urls: claim.seenUrls },
      });
    }
    let got: Got;
    try {
      got = await first.work!;
    } catch (err) {
      if (signal.aborted || (err instanceof BskError && ["download_prompted", "download_unavailable"].includes(String(err.data?.reason))))
        throw err;
      // The click happened: a download the caps cut says so with the daemon's own error.
      if (isCapRefusal(err))
        throw new BskError(err.code, err.message, { hint: err.hint, data: { ...err.data, effect_state: "committed" } });
      throw err instanceof BskError && err.data?.reason === "download_failed" ? err : downloadFailed(err);
    }
    const base = { tab_id: tabId, target: actedOn(rt), effect_state: "committed" as const };
    if (got.kind === "transfer") {
      return {
        ...base,
        effect: asDownload(effect, got.url, got.name),
        url: got.url,
        name: got.name,
        mime: got.mime,
        size: got.out.size,
        sha256: got.out.sha256,
        transfer_id: got.out.transfer_id,
      };
    }
    const done = got.item;
    return {
      ...base,
      effect,
      url: done.finalUrl || done.url,
      name: done.filename
        .split(/[\\/]/)
        .pop()!
        .replace(/^[0-9a-f-]{36}-/, ""),
      mime: done.mime ?? "",
      size: done.fileSize,
      local_path: done.filename,
    };
  } catch (err) {
    // Nothing half-done is left in the browser: a download still running is cancelled and its file removed.
    if (browserItem !== null) await removeItem(browserItem);
    throw err;
  } finally {
    await first.work?.catch(() => undefined);
    requests?.dispose();
    claim.eraseShadows();
    claim.dispose();
    await tap?.dispose();
    await blobs.dispose();
  }
}
