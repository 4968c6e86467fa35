/**
 * Takes a download's bytes from the response itself, before the browser's download manager sees them. While a tab
 * is a session's, its document responses pause at the headers (Fetch domain, enabled when the debugger attaches to
 * it: no cost per action); the one that is a download (download-response.ts) is read as a stream into a staged
 * transfer, then the request is aborted, so the browser neither saves nor asks where to save it, and nothing is
 * requested twice. Every other response goes on at once. Whose the bytes are: a running download call's (it arms a
 * ResponseTap for the tab, also over the frame's out-of-process session), else the session's kept downloads
 * (tab-downloads.ts). A worker that dies with interception on leaves the tab's documents paused until it
 * re-attaches: every (re)attachment sets interception afresh.
 */
import { onAttach, sendTo, tapCdp } from "../../cdp/debugger.ts";
import type { CdpTarget } from "../../cdp/refs/target.ts";
import { fileRefusal, isFileUrl } from "../../session/file-urls.ts";
import { ownerOfTab, sessionsReady } from "../../session/sessions.ts";
import { type DownloadHead, downloadOf } from "./download-response.ts";
import { readStream } from "./io-stream.ts";
import { type DownloadMeta, type Finished, pushCounted, TransferOut } from "./transfer-out.ts";
import type { Progress } from "../../shared/handler.ts";

export interface Taken {
  head: DownloadHead;
  out: Finished;
}

const PATTERNS = [{ urlPattern: "*", resourceType: "Document", requestStage: "Response" }];
/** Asks remembered per tab (a page could ask for many; only the newest matter). */
const ASKED_MAX = 32;

/** URLs the page asked to download, per tab, until when: a navigation with the download disposition. */
const asked = new Map<number, Map<string, number>>();
/** How long such an ask stands: its response is a moment away, and a later navigation to the URL is not asked. */
const ASKED_MS = 10_000;
/** A download call's tap, per tab: while one runs, the tab's download responses are its. */
const callTaps = new Map<number, ResponseTap>();
/** Takes a session tab's download response when no call is running there (tab-downloads.ts). */
let keeper:
  | ((tabId: number, sessionId: string, head: DownloadHead, take: (meta: DownloadMeta, signal: AbortSignal) => Promise<Taken>) => void)
  | null = null;

export function setResponseKeeper(k: typeof keeper): void {
  keeper = k;
}

/** Whether a download call runs on the tab (its claim, not the session keeper, decides the tab's downloads). */
export function downloadCallOn(tabId: number): boolean {
  return callTaps.has(tabId);
}

export function installDownloadTap(): void {
  // After a worker restart the sessions are read back first: whose the tab is decides.
  onAttach(async (tabId, send) => {
    await sessionsReady();
    return ownerOfTab(tabId) ? send("Fetch.enable", { patterns: PATTERNS }) : send("Fetch.disable");
  });
  tapCdp({
    onEvent(source, method, p) {
      if (method === "Page.frameRequestedNavigation" && p.disposition === "download") {
        let urls = asked.get(source.tabId);
        if (!urls) asked.set(source.tabId, (urls = new Map()));
        urls.set(String(p.url), Date.now() + ASKED_MS);
        while (urls.size > ASKED_MAX) urls.delete(urls.keys().next().value!);
      } else if (method === "Fetch.requestPaused") paused(source, p);
    },
    onDetach(tabId) {
      asked.delete(tabId);
    },
  });
}

/**
 * A file: document (page, frame or download) is judged before its bytes go anywhere: one the session may not open
 * (session/file-urls.ts) fails here, so neither the tab nor a download gets it, however the page asked for it.
 */
function paused(source: CdpTarget, p: Record<string, any>): void {
  const owner = ownerOfTab(source.tabId);
  const url = String(p.request?.url ?? "");
  if (!owner || !isFileUrl(url)) return decide(source, p);
  void fileRefusal(owner.session, url).then((rule) => {
    if (!rule) return decide(source, p);
    console.warn(`bsk: tab ${source.tabId} of session ${owner.session.session_id} may not load ${url} (${rule})`);
    void sendTo(source, "Fetch.failRequest", { requestId: String(p.requestId), errorReason: "AccessDenied" }).catch(() => undefined);
  });
}

function decide(source: CdpTarget, p: Record<string, any>): void {
  const requestId = String(p.requestId);
  const go = () => void sendTo(source, "Fetch.continueRequest", { requestId }).catch(() => undefined);
  const call = callTaps.get(source.tabId);
  if (call) return call.paused(source, p) ? undefined : go();
  const owner = ownerOfTab(source.tabId);
  const url = String(p.request?.url ?? "");
  if (!owner || !keeper || p.responseStatusCode === undefined) return go();
  const head = downloadOf({ url, status: Number(p.responseStatusCode), headers: p.responseHeaders ?? [] }, askedFor(source.tabId, url, p));
  if (!head) return go();
  keeper(source.tabId, owner.session.session_id, head, (meta, signal) => takeResponse(source, requestId, head, meta, signal));
}

/** Streams a paused response's body into a staged transfer; the request then ends, as a download's does. */
async function takeResponse(
  source: CdpTarget,
  requestId: string,
  head: DownloadHead,
  meta: DownloadMeta,
  signal: AbortSignal,
  progress?: Progress,
): Promise<Taken> {
  let out: TransferOut | null = null;
  try {
    const { stream } = await sendTo<{ stream: string }>(source, "Fetch.takeResponseBodyAsStream", { requestId }, signal);
    out = await TransferOut.begin(meta.sessionId, safeName(head.name), head.mime, signal, meta.download);
    await readStream(source, stream, (b) => pushCounted(out!, b, head.size ?? undefined, progress), signal);
    return { head, out: await out.finish() };
  } catch (err) {
    out?.release();
    throw err;
  } finally {
    // The body was taken (or failed): the navigation ends here, with nothing shown or saved.
    await sendTo(source, "Fetch.failRequest", { requestId, errorReason: "Aborted" }).catch(() => undefined);
  }
}

/**
 * Whether the page asked for this response to be a download: a navigation it asked that of, or a request the
 * browser's download manager made for it (an <a download> link). Chromium reports navigations to the Network domain
 * (enabled on every attached tab: networkId) with the headers a navigation sends; a download request has neither.
 */
function askedFor(tabId: number, url: string, p: Record<string, any>): { name?: string } | null {
  const until = asked.get(tabId)?.get(url);
  asked.get(tabId)?.delete(url);
  if (until !== undefined && until >= Date.now()) return {};
  const headers = (p.request?.headers ?? {}) as Record<string, string>;
  const navigationHeader = Object.keys(headers).some((h) => h.toLowerCase() === "upgrade-insecure-requests");
  return p.networkId === undefined && !navigationHeader ? {} : null;
}

const sameTarget = (a: CdpTarget, b: CdpTarget) => a.tabId === b.tabId && a.sessionId === b.sessionId;

/** A download call's hold on its tab's download responses, for the length of the call. */
export class ResponseTap {
  private readonly asked = new Map<string, { name?: string }>();
  private took: string | null = null;

  private constructor(
    private readonly tabId: number,
    private readonly targets: CdpTarget[],
    private readonly sessionId: string,
    /** Offered the taking of the first download response; false when another source came first (nothing starts). */
    private readonly offer: (head: DownloadHead, start: () => Promise<Taken>) => boolean,
    private readonly signal: AbortSignal,
    private readonly progress?: Progress,
  ) {}

  static async arm(
    tabId: number,
    targets: CdpTarget[],
    opts: {
      sessionId: string;
      progress?: Progress;
      link?: { url: string; name?: string };
      offer: (head: DownloadHead, start: () => Promise<Taken>) => boolean;
    },
    signal: AbortSignal,
  ): Promise<ResponseTap> {
    const tap = new ResponseTap(tabId, targets, opts.sessionId, opts.offer, signal, opts.progress);
    if (opts.link) tap.asked.set(opts.link.url, { name: opts.link.name });
    callTaps.set(tabId, tap);
    try {
      // The tab's own session is normally on already (it is the session's); a frame's session is on for the call.
      await Promise.all(targets.map((t) => sendTo(t, "Fetch.enable", { patterns: PATTERNS }, signal)));
    } catch (err) {
      await tap.dispose();
      throw err;
    }
    return tap;
  }

  /** The URL whose response was taken (the browser's download of it, if one shows up, is a shadow to cancel). */
  tookUrl(url: string): boolean {
    return this.took !== null && this.took === url;
  }

  /** A paused response of the tab: true when the call took it (else it goes on). */
  paused(source: CdpTarget, p: Record<string, any>): boolean {
    if (!this.targets.some((t) => sameTarget(t, source))) return false;
    const requestId = String(p.requestId);
    const url = String(p.request?.url ?? "");
    const wanted = this.asked.get(url) ?? askedFor(this.tabId, url, p);
    const head =
      this.took === null && p.responseStatusCode !== undefined
        ? downloadOf({ url, status: Number(p.responseStatusCode), headers: p.responseHeaders ?? [] }, wanted)
        : null;
    if (!head) return false;
    // Known as taken before the offer is made: the browser's own item for it may be routed during the offer.
    this.took = url;
    const meta = { sessionId: this.sessionId };
    if (this.offer(head, () => takeResponse(source, requestId, head, meta, this.signal, this.progress))) return true;
    this.took = null;
    return false;
  }

  /** Back to the session's keeping (a frame's session stops pausing); safe to call twice. */
  async dispose(): Promise<void> {
    if (callTaps.get(this.tabId) === this) callTaps.delete(this.tabId);
    await Promise.all(this.targets.filter((t) => t.sessionId).map((t) => sendTo(t, "Fetch.disable").catch(() => undefined)));
  }
}

/** A file name the daemon accepts: no directories, no control characters. */
export function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const clean = base
    .replace(/[\u0000-\u001f<>:"|?*]/g, "_")
    .replace(/^\.+/, "")
    .slice(-150);
  return clean || "download";
}
