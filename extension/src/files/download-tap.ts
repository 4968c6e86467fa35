/**
 * Takes a download's bytes from the response itself, before the browser's download manager sees them: while a
 * download call runs, the tab's document responses pause at the headers (Fetch domain); the first that is a
 * download (download-response.ts) is read as a stream into a staged transfer, then the request is aborted, so the
 * browser neither saves nor asks where to save it. Nothing is requested twice. Every other response goes on at once.
 * A worker that dies with interception on would leave the tab's documents paused: every (re)attachment turns it off.
 */
import { onAttach, sendTo } from "../cdp.ts";
import type { CdpTarget } from "../refs/target.ts";
import { onTabEvent } from "./cdp-events.ts";
import { type DownloadHead, downloadOf } from "./download-response.ts";
import { readStream } from "./io-stream.ts";
import { type Finished, pushCounted, TransferOut } from "./transfer-out.ts";
import type { Progress } from "../tools/handler.ts";

export interface Taken {
  head: DownloadHead;
  out: Finished;
}

export function installDownloadTap(): void {
  onAttach((_tabId, send) => send("Fetch.disable"));
}

const sameTarget = (a: CdpTarget, b: CdpTarget) => a.tabId === b.tabId && a.sessionId === b.sessionId;

export class ResponseTap {
  /** URLs the page asked to download (an <a download> link, a navigation with the download disposition). */
  private readonly asked = new Map<string, { name?: string }>();
  private readonly offs: (() => void)[] = [];
  private took: string | null = null;

  private constructor(
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
    opts: { sessionId: string; progress?: Progress; link?: { url: string; name?: string }; offer: (head: DownloadHead, start: () => Promise<Taken>) => boolean },
    signal: AbortSignal,
  ): Promise<ResponseTap> {
    const tap = new ResponseTap(targets, opts.sessionId, opts.offer, signal, opts.progress);
    if (opts.link) tap.asked.set(opts.link.url, { name: opts.link.name });
    tap.offs.push(
      onTabEvent(tabId, "Page.frameRequestedNavigation", (_s, p) => {
        if (p.disposition === "download" && !tap.asked.has(String(p.url))) tap.asked.set(String(p.url), {});
      }),
      onTabEvent(tabId, "Fetch.requestPaused", (source, p) => tap.paused(source, p)),
    );
    try {
      const patterns = [{ urlPattern: "*", resourceType: "Document", requestStage: "Response" }];
      await Promise.all(targets.map((t) => sendTo(t, "Fetch.enable", { patterns }, signal)));
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

  private paused(source: CdpTarget, p: Record<string, any>): void {
    if (!this.targets.some((t) => sameTarget(t, source))) return;
    const requestId = String(p.requestId);
    const url = String(p.request?.url ?? "");
    const head =
      this.took === null && p.responseStatusCode !== undefined
        ? downloadOf({ url, status: Number(p.responseStatusCode), headers: p.responseHeaders ?? [] }, this.asked.get(url) ?? null)
        : null;
    if (head) {
      // Known as taken before the offer is made: the browser's own item for it may be routed during the offer.
      this.took = url;
      if (this.offer(head, () => this.take(source, requestId, head))) return;
      this.took = null;
    }
    void sendTo(source, "Fetch.continueRequest", { requestId }).catch(() => undefined);
  }

  private async take(source: CdpTarget, requestId: string, head: DownloadHead): Promise<Taken> {
    let out: TransferOut | null = null;
    try {
      const { stream } = await sendTo<{ stream: string }>(source, "Fetch.takeResponseBodyAsStream", { requestId }, this.signal);
      out = await TransferOut.begin(this.sessionId, safeName(head.name), head.mime, this.signal);
      await readStream(source, stream, (b) => pushCounted(out!, b, head.size ?? undefined, this.progress), this.signal);
      return { head, out: await out.finish() };
    } catch (err) {
      out?.release();
      throw err;
    } finally {
      // The body was taken (or failed): the navigation ends here, as a download's does, with nothing shown or saved.
      await sendTo(source, "Fetch.failRequest", { requestId, errorReason: "Aborted" }).catch(() => undefined);
    }
  }

  /** Interception off (paused requests go on); safe to call twice. */
  async dispose(): Promise<void> {
    for (const off of this.offs.splice(0)) off();
    await Promise.all(this.targets.map((t) => sendTo(t, "Fetch.disable").catch(() => undefined)));
  }
}

/** A file name the daemon accepts: no directories, no control characters. */
export function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const clean = base.replace(/[\u0000-\u001f<>:"|?*]/g, "_").replace(/^\.+/, "").slice(-150);
  return clean || "download";
}
