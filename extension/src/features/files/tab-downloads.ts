/**
 * Downloads a session's tabs start (a click on an attachment or an <a download> link, a script's blob) are the
 * agent's. bsk takes their bytes before the browser's download manager sees them — from the response
 * (download-tap.ts) or, for blob: and data: URLs, from the page (page-blob.ts) — and stages them in the daemon as the
 * session's kept downloads: `bsk downloads` lists them, `bsk downloads save` writes one out. Each is a `download`
 * event when it starts and when it ends (complete, with size and SHA-256, or failed), and the action that caused it
 * names it in its effect (download-news.ts). The browser's own item for it is cancelled while its name is decided,
 * so nothing lands in the person's Downloads folder or list and "Ask where to save" never shows; one a session's tab
 * announced that bsk could not take (a blob the page revoked at once) is cancelled too, and reported failed.
 * While a `download` call runs on the tab, that call decides the tab's downloads (download.ts).
 */
import { browser } from "wxt/browser";
import { errorMessage } from "../../shared/abort.ts";
import { tapCdp } from "../../cdp/debugger.ts";
import { emit } from "../../ports/outbox.ts";
import { ownerOfTab } from "../../session/sessions.ts";
import type { CdpTarget } from "../../cdp/refs/target.ts";
import { eraseItem, eraseWhenCreated } from "./download-claim.ts";
import { announceKept } from "../../page/download-news.ts";
import { urlName } from "./download-response.ts";
import { downloadCallOn, safeName, setResponseKeeper } from "./download-tap.ts";
import { routeFilenames } from "./filename-router.ts";
import { takeUrlFromPage } from "./page-blob.ts";
import type { DownloadMeta, Finished } from "./transfer-out.ts";

/** How long after a session's tab started a download its browser item is still recognised by its URL. */
const CLAIM_MS = 30_000;
/** Longest URL an event or the daemon's list carries (a data: URL can be megabytes). */
const URL_CHARS = 2000;

/** URLs whose bytes bsk takes: the browser's item for each is cancelled. */
const claimed = new Map<string, number>();
/**
 * URLs a session's tab may download that bsk has not taken (yet): announced by the tab (Page.downloadWillBegin), or
 * the first address of a tab a session's page opened, which no debugger watches yet (a target=_blank download link).
 */
const announced = new Map<string, { tabId: number; sessionId: string; name: string; until: number; why: string }>();

const NOT_TAKEN = "bsk could not take this download from the page, so the browser's download was cancelled; nothing was saved";
const NEW_TAB =
  "the download started in a tab the page opened, before bsk watched it, so the browser's download was cancelled; nothing was saved (bsk download on the link takes it)";

function prune(now: number): void {
  for (const [url, until] of claimed) if (until < now) claimed.delete(url);
  for (const [url, a] of announced) if (a.until < now) announced.delete(url);
}

const cut = (url: string) => (url.length > URL_CHARS ? `${url.slice(0, URL_CHARS)}…` : url);

function newId(): string {
  return `d${Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

interface Start {
  tabId: number;
  sessionId: string;
  url: string;
  name: string;
  mime: string;
  size: number | null;
}

type Produce = (meta: DownloadMeta, signal: AbortSignal) => Promise<{ out: Finished; mime?: string }>;

/** Takes one download into the session's keeping and reports it, from its start to its end. */
async function keep(s: Start, produce: Produce): Promise<void> {
  const now = Date.now();
  prune(now);
  claimed.set(s.url, now + CLAIM_MS);
  announced.delete(s.url);
  eraseWhenCreated(s.url);
  const id = newId();
  const name = safeName(s.name);
  announceKept(s.tabId, { id, url: s.url, name });
  const base = { session_id: s.sessionId, tab_id: s.tabId, download_id: id, url: cut(s.url), name };
  emit("download", { ...base, mime: s.mime, state: "in_progress", ...(s.size !== null && { size: s.size }) });
  try {
    const got = await produce({ sessionId: s.sessionId, download: { id, tab_id: s.tabId, url: cut(s.url) } }, new AbortController().signal);
    emit("download", { ...base, mime: got.mime || s.mime, state: "complete", size: got.out.size, sha256: got.out.sha256 });
  } catch (err) {
    emit("download", { ...base, mime: s.mime, state: "failed", error: errorMessage(err) });
  }
}

function onDownloadWillBegin(source: CdpTarget, p: Record<string, any>): void {
  const owner = ownerOfTab(source.tabId);
  const url = String(p.url ?? "");
  if (!owner || !url || downloadCallOn(source.tabId) || claimed.has(url)) return;
  const sessionId = owner.session.session_id;
  const name = String(p.suggestedFilename || urlName(url));
  if (/^(blob|data):/i.test(url)) {
    const frameId = String(p.frameId ?? "");
    void keep({ tabId: source.tabId, sessionId, url, name, mime: "", size: null }, (meta, signal) =>
      takeUrlFromPage(source, frameId, url, meta, safeName(name), signal),
    );
    return;
  }
  // An <a download> link announces itself before its response, which the response tap then takes.
  announced.set(url, { tabId: source.tabId, sessionId, name, until: Date.now() + CLAIM_MS, why: NOT_TAKEN });
}

export function installTabDownloads(): void {
  setResponseKeeper((tabId, sessionId, head, take) => {
    void keep({ tabId, sessionId, url: head.url, name: head.name, mime: head.mime, size: head.size }, async (meta, signal) => ({
      out: (await take(meta, signal)).out,
    }));
  });
  tapCdp({
    onEvent(source, method, p) {
      if (method === "Page.downloadWillBegin") onDownloadWillBegin(source, p);
    },
  });
  browser.webNavigation.onCreatedNavigationTarget.addListener((d) => {
    const owner = ownerOfTab(d.sourceTabId);
    if (!owner || !/^https?:/i.test(d.url)) return;
    announced.set(d.url, {
      tabId: d.tabId,
      sessionId: owner.session.session_id,
      name: urlName(d.url),
      until: Date.now() + CLAIM_MS,
      why: NEW_TAB,
    });
  });
  routeFilenames((item, suggest) => {
    prune(Date.now());
    const urls = [item.url, item.finalUrl];
    if (urls.some((u) => claimed.has(u))) {
      void eraseItem(item.id).finally(() => suggest());
      return true;
    }
    const a = urls.map((u) => announced.get(u)).find((x) => x !== undefined);
    if (!a) return false;
    announced.delete(item.url);
    // A session tab's download bsk could not take (an out-of-process frame's, a new tab's): not the person's either.
    void eraseItem(item.id).finally(() => suggest());
    emit("download", {
      session_id: a.sessionId,
      tab_id: a.tabId,
      download_id: newId(),
      url: cut(item.url),
      name: safeName(a.name),
      mime: item.mime ?? "",
      state: "failed",
      error: a.why,
    });
    return true;
  });
}
